"""The reference for interaction latency: an almost empty Streamlit page that reruns on input."""

import streamlit as st

text = st.text_input("Text")
st.write(f"echo: {text}")
