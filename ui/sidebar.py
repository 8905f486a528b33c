"""The shared sidebar: compute device and classroom mode, both kept in the URL."""

from __future__ import annotations

import streamlit as st
import torch

DEVICE_KEY = "device"  # also the URL parameter name
CLASSROOM_KEY = "classroom"


def available_devices() -> list[str]:
    """'cuda' first when a GPU is present, then 'cpu'."""
    return ["cuda", "cpu"] if torch.cuda.is_available() else ["cpu"]


def device_ui() -> str:
    """Sidebar select for the device; returns a torch.device string ('cuda' or 'cpu')."""
    options = available_devices()
    return st.sidebar.selectbox(
        "Device", options, key=DEVICE_KEY, bind="query-params",
        help="Models run on the GPU when one is present, else on the CPU.",
    )  # fmt: skip


def classroom_ui() -> bool:
    """Sidebar toggle for classroom mode (large fonts, colour-blind-safe colours)."""
    return st.sidebar.toggle(
        "Classroom mode", key=CLASSROOM_KEY, bind="query-params",
        help="Larger fonts and a colour-blind-safe colour scale on every chart.",
    )  # fmt: skip


def current_device() -> str:
    """The device chosen in the sidebar (for pages); falls back to the best available one."""
    chosen = st.session_state.get(DEVICE_KEY)
    return chosen if chosen in available_devices() else available_devices()[0]


def classroom_mode() -> bool:
    """Whether classroom mode is on (for pages and the chart wrapper)."""
    return bool(st.session_state.get(CLASSROOM_KEY, False))


def sidebar_ui() -> tuple[str, bool]:
    """Render the shared sidebar controls; returns (device, classroom)."""
    device = device_ui()
    classroom = classroom_ui()
    st.sidebar.caption(f"Running on **{device}** · torch {torch.__version__}")
    return device, classroom
