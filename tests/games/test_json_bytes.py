"""The one JSON writer of the API, the sockets and the store (games.runtime.json_bytes)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from games.runtime import json_bytes

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5) | st.integers(-5, 5), inner, max_size=4),
    max_leaves=20,
)


@given(values)
def test_it_writes_what_json_reads_back_for_any_value(value):
    """Text keys, number keys (written as text, as json does) and integers past 64 bits."""
    written = json_bytes(value)
    expected = json.loads(json.dumps(value))
    assert json.loads(written) == expected


def test_a_view_is_compact_utf8():
    assert json_bytes({"name": "Zoë", "cards": [1, 2], "n": None}) == (
        '{"name":"Zoë","cards":[1,2],"n":null}'.encode()
    )
    assert json_bytes({1: "a", "b": 2**70}) == b'{"1":"a","b":1180591620717411303424}'
