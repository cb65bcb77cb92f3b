"""What ``read_settings`` takes from the environment, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from memhtml.app.bootstrap.settings import read_settings
from memhtml.app.bootstrap.warm_forward import REQUEST_VAR
from memhtml.domain.errors import InvalidInput


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("", None), ("  ", None), ("9f2c-01", "9f2c-01"), (" ab12 ", "ab12")],
)
def test_the_request_id_of_a_forwarded_command(
    tmp_path: Path, value: str | None, expected: str | None
) -> None:
    environ = {} if value is None else {REQUEST_VAR: value}
    assert expected == read_settings(tmp_path, environ).request_id


@pytest.mark.parametrize("value", ["a b", "x" * 65, "id;rm", "ü"])
def test_a_malformed_request_id_names_the_variable(tmp_path: Path, value: str) -> None:
    with pytest.raises(InvalidInput, match=REQUEST_VAR):
        read_settings(tmp_path, {REQUEST_VAR: value})


def test_a_tokenizer_outside_the_two_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="MEMHTML_FTS_TOKENIZER"):
        read_settings(tmp_path, {"MEMHTML_FTS_TOKENIZER": "trigram"})
