"""The load harness's pieces (bench/load) and the class layout's nginx configuration
(deploy/), without a server. tests/test_load_run.py runs them against a served app."""

from __future__ import annotations

import collections
import io
import math
import os
import random
import re
from pathlib import Path

import pytest
from PIL import Image
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load import protocol
from bench.load.__main__ import parse_load_args
from bench.load.metrics import ServerWatch, percentile
from bench.load.pages import LESSON, class_profiles, scene_png, text_with_pieces
from bench.load.protocol import Widget
from bench.load.report import Run, rows, table
from bench.load.scenarios import Outcome, Sample
from deploy import serve_class
from tests.requirements_env import need

ROOT = Path(__file__).resolve().parents[1]


def delta(kind: str, **fields: object) -> ForwardMsg:
    msg = ForwardMsg()
    proto = getattr(msg.delta.new_element, kind)
    for name, value in fields.items():
        if isinstance(value, list):
            getattr(proto, name).extend(value)
        else:
            setattr(proto, name, value)
    return msg


# ---------------------------------------------------------------- protocol


def test_widget_key_is_read_from_the_id():
    assert protocol.key_of("$$ID-0123abcd-aln_text") == "aln_text"
    assert protocol.key_of("$$ID-0123abcd-anat_editor_2") == "anat_editor_2"
    assert protocol.key_of("$$ID-0123abcd-") is None  # a widget without a key
    assert protocol.key_of("plain") is None


def test_widgets_are_found_in_the_deltas_with_their_options_and_range():
    box = delta("selectbox", id="$$ID-1-aln_model", options=["bahdanau", "luong-dot"])
    slider = delta("slider", id="$$ID-2-aln_beam", min=1, max=10)
    text = delta("text_input", id="$$ID-3-aln_text")
    unkeyed = delta("text_input", id="$$ID-4-")
    heading = delta("markdown", body="# hi")
    found = [w for m in (box, slider, text, unkeyed, heading) for w in protocol.widgets_in(m)]
    assert [w.key for w in found] == ["aln_model", "aln_beam", "aln_text"]
    assert found[0].options == ("bahdanau", "luong-dot") and found[0].element_type == "selectbox"
    assert (found[1].lo, found[1].hi) == (1, 10)


def test_segmented_control_options_are_their_labels():
    msg = delta("button_group", id="$$ID-1-aln_mode")
    msg.delta.new_element.button_group.options.add(content="Greedy")
    msg.delta.new_element.button_group.options.add(content="Forced")
    (widget,) = protocol.widgets_in(msg)
    assert widget.options == ("Greedy", "Forced")


@pytest.mark.parametrize(
    ("kind", "value", "field", "expected"),
    [
        ("text_input", "a dog .", "string_value", "a dog ."),
        ("selectbox", "luong-dot", "string_value", "luong-dot"),
        ("button_group", "Forced", "string_array_value", ["Forced"]),
        ("slider", 3, "double_array_value", [3.0]),
        ("number_input", 0.5, "double_value", 0.5),
        ("checkbox", True, "bool_value", True),
        ("button", True, "trigger_value", True),
        ("dataframe", '{"edited_rows": {}}', "string_value", '{"edited_rows": {}}'),
    ],
)
def test_each_kind_sends_its_value_in_the_field_streamlit_reads(kind, value, field, expected):
    state = protocol.widget_state(Widget("k", "$$ID-9-k", kind), value)
    assert state.id == "$$ID-9-k" and state.WhichOneof("value") == field
    got = getattr(state, field)
    assert (list(got.data) if hasattr(got, "data") else got) == expected


def test_an_upload_is_sent_as_the_uploader_state():
    urls = FileURLs(file_id="f1", upload_url="/_stcore/upload_file/s/f1", delete_url="/d")
    info = protocol.uploaded_info(urls, "cat.png", 123)
    state = protocol.widget_state(
        Widget("cap_upload", "$$ID-1-cap_upload", "file_uploader"), [info]
    )
    (sent,) = state.file_uploader_state_value.uploaded_file_info
    assert (sent.name, sent.size, sent.file_id) == ("cat.png", 123, "f1")


def test_rerun_message_round_trips():
    state = protocol.widget_state(Widget("k", "$$ID-9-k", "text_input"), "hello")
    data = protocol.rerun_msg([state], page_name="alignment", query="lang=en")
    msg = BackMsg()
    msg.ParseFromString(data)
    client = msg.rerun_script
    assert (client.page_name, client.query_string) == ("alignment", "lang=en")
    assert client.widget_states.widgets[0].string_value == "hello"
    request = BackMsg()
    request.ParseFromString(protocol.file_urls_msg("r1", "sess", ["a.png"]))
    assert list(request.file_urls_request.file_names) == ["a.png"]


def test_a_run_cut_short_for_a_rerun_is_not_the_answer():
    done, early = ForwardMsg(), ForwardMsg()
    done.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    early.script_finished = ForwardMsg.FINISHED_EARLY_FOR_RERUN
    assert protocol.finished(done) and not protocol.finished(early)
    assert not protocol.finished(delta("markdown", body="x"))


def test_exception_boxes_and_error_sentences_count_as_errors():
    exc = delta("exception", type="ValueError")
    sentence = delta("alert", body="Something went wrong … the error id **0badc0de**")
    warning = delta("alert", body="The sentence is empty: type something.")
    assert "ValueError" in protocol.error_in(exc)
    assert protocol.error_in(sentence).startswith("error sentence")
    assert protocol.error_in(warning) is None  # a refusal is the page working


# ---------------------------------------------------------------- pages and sizes


def test_a_class_follows_the_lesson_mix():
    counts = collections.Counter(p.name for p in class_profiles(30))
    assert counts == LESSON
    small = [p.name for p in class_profiles(7)]
    assert len(set(small)) >= 6  # a small class still visits most pages


def test_texts_have_the_pieces_asked_for():
    assert len(text_with_pieces(128).split()) == 126  # + [CLS] and [SEP]
    img = Image.open(io.BytesIO(scene_png(random.Random(1))))
    assert img.format == "PNG" and img.size == (320, 240)


def test_quick_mode_shrinks_every_size_and_sizes_are_bounded():
    args = parse_load_args(["--quick"])
    assert args.sessions < 30 and args.interactions < 20 and args.soak_alignment < 1000
    assert args.pause == (0.5, 1.5)
    with pytest.raises(SystemExit):
        parse_load_args(["--sessions", "100000"])
    with pytest.raises(SystemExit):
        parse_load_args(["--url", "http://example.com:8501"])  # loopback only
    assert parse_load_args(["--replicas", "1,2", "--sessions", "3"]).replicas == [1, 2]


# ---------------------------------------------------------------- figures


def test_percentiles():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 95) == 5
    assert math.isnan(percentile([], 50))


def test_server_watch_reads_this_process(tmp_path: Path):
    log = tmp_path / "server.log"
    log.write_text("Traceback (most recent call last):\nold\n")
    watch = ServerWatch([os.getpid()], [log])
    watch.start()
    with open(log, "a") as f:
        f.write("Traceback (most recent call last):\nnew\n")
    summary = watch.summary(1.0)
    assert summary["rss_start_mb"] > 10 and summary["tracebacks"] == 1  # only the new one


def run_of(scenario: str, samples: list[Sample], replicas: int = 1, **extra) -> Run:
    server = {"cpu_percent": 50.0, "rss_start_mb": 700.0, "rss_end_mb": 720.0}
    server |= {"rss_peak_mb": extra.pop("peak", 740.0), "tracebacks": 0}
    return Run(scenario, replicas, Outcome(samples, **extra), server, 10.0)


def test_class_floor_per_page():
    fast = [Sample("alignment", "sentence", 0.1)] * 19 + [Sample("alignment", "open", 3.0)]
    slow = [Sample("multi_head@512", "sentence", 2.5)] * 10
    failed = [Sample("anatomy", "edit", 0.1), Sample("anatomy", "edit", None, "boom")]
    got = {r["page"]: r for r in rows(run_of("class", fast + slow + failed))}
    assert got["alignment"]["met"] == "met" and got["alignment"]["interactions"] == 19
    assert got["multi_head@512"]["met"] == "met"  # its floor is 3 s
    assert got["anatomy"]["met"] == "missed" and got["anatomy"]["errors"] == 1


def test_burst_floor_is_stricter_behind_two_replicas():
    samples = [Sample("alignment", "enter", 1.2)] * 30
    rounds = [{"round": 1, "last_s": 1.2, "p50_s": 0.8, "span_s": 2.0}]
    assert rows(run_of("burst", samples, 1, rounds=rounds))[0]["met"] == "met"
    assert rows(run_of("burst", samples, 2, rounds=rounds))[0]["met"] == "missed"
    assert "last answer per round 1.20" in table([run_of("burst", samples, 1, rounds=rounds)])


def test_soak_floors_read_the_memory_series():
    samples = [Sample("multi_head@128-512", "rerun", 1.0)] * 4
    flat = [(0, 700.0), (100, 800.0), (200, 810.0)]
    growing = [(0, 700.0), (100, 750.0), (200, 900.0)]
    assert rows(run_of("soak-multi-head", samples, rss_series=flat))[0]["met"] == "met"
    assert rows(run_of("soak-multi-head", samples, rss_series=growing))[0]["met"] == "missed"
    high = run_of("soak-multi-head", samples, rss_series=flat, peak=1100.0)
    assert rows(high)[0]["met"] == "missed"  # peak 400 MB over start
    aln = [(0, 700.0), (500, 720.0), (1000, 760.0)]
    assert rows(run_of("soak-alignment", samples, rss_series=aln))[0]["met"] == "missed"
    short = rows(run_of("soak-multi-head", samples, rss_series=[(0, 700.0), (6, 790.0)]))[0]
    assert (short["floor"], short["met"]) == ("too few RSS readings", "missed")


# ---------------------------------------------------------------- deploy


def test_nginx_site_has_affinity_websocket_and_long_timeouts():
    text = serve_class.render_site(["127.0.0.1:9001", "127.0.0.1:9002"], "127.0.0.1:9000")
    assert "server 127.0.0.1:9001" in text and "server 127.0.0.1:9002" in text
    assert "listen 127.0.0.1:9000;" in text and "@" not in text
    assert re.search(r"hash \$atlas_affinity consistent;", text)
    assert not re.search(r"^\s*ip_hash", text, re.M)  # a classroom shares one address
    for line in (
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $atlas_connection;",
        "proxy_read_timeout 1d;",
        "proxy_set_header Host $http_host;",
    ):
        assert line in text
    size = re.search(r"client_max_body_size (\d+)m;", text)
    config = (ROOT / ".streamlit" / "config.toml").read_text()
    limit = int(re.search(r"maxUploadSize = (\d+)", config).group(1))
    assert size and int(size.group(1)) >= limit  # the proxy lets every upload through
    with pytest.raises(ValueError):
        serve_class.render_site([], "80")


def test_compose_configuration_is_the_rendered_template():
    shipped = (ROOT / "deploy" / "nginx.compose.conf").read_text()
    assert shipped == serve_class.render_site(["app1:8501", "app2:8501"], "80")
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    assert "app1:" in compose and "app2:" in compose and "nginx.compose.conf" in compose


def test_nginx_accepts_the_rendered_configuration(tmp_path: Path):
    try:
        serve_class.nginx_binary()
    except FileNotFoundError as exc:
        need(False, str(exc))
    conf = serve_class.write_nginx_conf(tmp_path, ["127.0.0.1:9001", "127.0.0.1:9002"], "9000")
    serve_class.check_nginx_conf(conf)  # nginx -t
    (tmp_path / "atlas.conf").write_text("upstream atlas {")  # and it can fail
    with pytest.raises(RuntimeError, match="nginx refused"):
        serve_class.check_nginx_conf(conf)


def test_the_image_holds_every_package_the_app_imports():
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\S+) ", dockerfile, re.M))
    sources = [ROOT / "app.py"] + [
        p
        for d in ("app_pages", "ui", "serve", "models", "viz", "media", "i18n")
        for p in (ROOT / d).rglob("*.py")
    ]
    imported = {
        name
        for path in sources
        for name in re.findall(r"^\s*(?:from|import) (\w+)", path.read_text(), re.M)
        if (ROOT / name).is_dir() or (ROOT / f"{name}.py").is_file()
    }
    assert imported <= {c.removesuffix(".py") for c in copied}, imported - copied
    for data in ("checkpoints", "locale", "assets", ".streamlit"):
        assert data in copied
