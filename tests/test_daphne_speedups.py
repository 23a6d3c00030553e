"""Twisted's Content-Type parse, replaced by a faster one (config/daphne_speedups.py): it tells the
form types apart exactly as Twisted's own does, and daphne's server runs with it; Twisted's own
access log, which nobody reads under daphne, is off, and daphne's is written as before;
autobahn's per-connection settings dump is a plain repr."""

from hypothesis import given
from hypothesis import strategies as st

from config import daphne_speedups

FORMS = {b"application/x-www-form-urlencoded", b"multipart/form-data"}
PIECES = [
    "application",
    "multipart",
    "x-www-form-urlencoded",
    "form-data",
    "json",
    "text",
    "/",
    ";",
    " ",
    "\t",
    ",",
    "(",
    ")",
    '"',
    "=",
    "charset",
    "boundary",
    "utf-8",
    "APPLICATION",
    "Form-Data",
    "X-WWW-FORM-URLENCODED",
    "é",
    "\\",
]


def agree(line: bytes) -> None:
    mine, theirs = daphne_speedups.parse_content_type(line), daphne_speedups.original(line)
    if mine in FORMS or theirs in FORMS:
        assert mine == theirs, line


def test_the_usual_headers_get_twisted_s_own_answer():
    for line in [
        b"application/json",
        b"Application/JSON; charset=utf-8",
        b"application/x-www-form-urlencoded",
        b"  application/x-www-form-urlencoded ; charset=UTF-8",
        b"multipart/form-data; boundary=----abc",
        b'MULTIPART/FORM-DATA;boundary="x;y"',
        b"\tmultipart/form-data\t;boundary=z",
        b"text",
        b"",
    ]:
        agree(line)
    assert daphne_speedups.parse_content_type(b"Multipart/Form-Data; boundary=x") == (
        b"multipart/form-data"
    )


@given(st.lists(st.sampled_from(PIECES), max_size=8).map("".join))
def test_any_header_is_a_form_for_both_or_for_neither(text):
    agree(text.encode("utf-8"))


def test_the_server_application_installs_it():
    from twisted.web import http

    import config.asgi  # noqa: F401 - what daphne loads

    assert http._parseContentType is daphne_speedups.parse_content_type


def test_twisted_s_unread_access_log_is_off_and_a_log_path_still_works(tmp_path):
    from twisted.web import http

    daphne_speedups.install()
    factory = http.HTTPFactory()
    factory.startFactory()
    try:
        assert factory._logFile is None  # HTTPFactory.log skips the line
    finally:
        factory.stopFactory()
    chosen = http.HTTPFactory(logPath=str(tmp_path / "access.log"))
    chosen.startFactory()
    try:
        assert chosen._logFile is not None
    finally:
        chosen.stopFactory()


def test_autobahn_dumps_its_settings_with_repr_and_its_timings_still_read():
    from autobahn.websocket import protocol

    daphne_speedups.install()
    assert protocol.pformat is repr
    timings = protocol.Timings()
    timings.track("start")
    assert str(timings).startswith("{'start': ")


def test_autobahn_s_debug_arguments_are_worked_out_only_for_a_line_written():
    from autobahn import util
    from autobahn.twisted import websocket as twisted_websocket
    from autobahn.websocket import protocol

    daphne_speedups.install()
    calls = []
    later = daphne_speedups.deferred(lambda value: calls.append(value) or f"<{value}>")
    argument = later("sendData")
    assert calls == []  # a dropped debug line costs no formatting
    assert f"{argument} sent" == "<sendData> sent" and calls == ["sendData"]
    for module in (protocol, twisted_websocket):
        method = protocol.WebSocketProtocol.sendData
        assert str(module.hltype(method)) == util.hltype(method)
        assert f"{module.hlval(7):>3}" == f"{util.hlval(7):>3}"
