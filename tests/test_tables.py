"""ui.tables: records and columns reach st.table as an Arrow table (no DataFrame per rerun); a
DataFrame, or a column Arrow cannot type, goes as it came."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from ui.tables import _arrow


def test_records_and_columns_become_arrow_tables() -> None:
    records = _arrow([{"word": "cat", "α": 0.5}, {"word": "sat", "α": 0.25}])
    assert isinstance(records, pa.Table)
    assert records.column_names == ["word", "α"] and records.column("α").to_pylist() == [0.5, 0.25]
    columns = _arrow({"layer": [1, 2], "share": [0.1, 0.2]})
    assert isinstance(columns, pa.Table) and columns.num_rows == 2


def test_other_data_goes_as_it_came() -> None:
    frame = pd.DataFrame({"model": ["a"], "BLEU": [30.1]})
    assert _arrow(frame) is frame
    mixed = [{"value": 1.5}, {"value": "n/a"}]  # Arrow cannot type this column
    assert _arrow(mixed) is mixed
    assert _arrow([]) is not None
