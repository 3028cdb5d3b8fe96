"""Strata in your Python process: ClickHouse SQL on the Strata engine.

    import strata
    strata.query("SELECT 1 AS x", "CSV")          # b'1\\n', in any output format
    strata.sql("SELECT number FROM numbers(3)").df()   # also .arrow(), .pl()
    with strata.Session("data") as s:             # tables kept in ./data
        s.query("CREATE TABLE t (a UInt8) ENGINE = MergeTree ORDER BY a")

A pandas or Polars DataFrame, or an Arrow table, in the caller's variables
is queryable by its name (``SELECT * FROM df``) unless a table of that name
exists. Errors raise ``strata.Error`` with ClickHouse's ``code`` and ``name``.
"""

import inspect
import re

from ._strata import CLICKHOUSE_VERSION, VERSION, Connection, Error

__all__ = ["Error", "Result", "Session", "query", "sql", "VERSION", "CLICKHOUSE_VERSION"]
__version__ = VERSION

# Names after FROM, JOIN or DESCRIBE: where a Python object may stand for a table.
_TABLE_NAME = re.compile(
    r"\b(?:FROM|JOIN|DESC|DESCRIBE(?:\s+TABLE)?)\s+(?:`([^`]+)`|([A-Za-z_][A-Za-z0-9_]*))(?!\s*[.(])",
    re.IGNORECASE)

# Results that are Python objects rather than bytes, as chdb names them.
_OBJECT_FORMATS = {
    "dataframe": lambda result: result.df(),
    "arrowtable": lambda result: result.arrow(),
    "polars": lambda result: result.pl(),
}


class Result:
    """The rows of a query as an Arrow table, converted on demand."""

    def __init__(self, ipc, summary):
        self._ipc = ipc
        self._table = None
        self.summary = summary or {}
        """The last statement's counters: elapsed, result_rows, read_rows,
        read_bytes, peak_memory_usage, spilled_bytes, spill_disk_bytes_written."""

    def arrow(self):
        """A ``pyarrow.Table``; read from the engine's Arrow buffers, not text."""
        if self._table is None:
            import pyarrow as pa
            self._table = (pa.ipc.open_stream(self._ipc).read_all() if self._ipc
                           else pa.table({}))
        return self._table

    def df(self):
        """A pandas DataFrame."""
        return self.arrow().to_pandas()

    def pl(self):
        """A Polars DataFrame."""
        import polars
        return polars.from_arrow(self.arrow())

    def fetchall(self):
        """The rows as a list of tuples."""
        table = self.arrow()
        return list(zip(*(column.to_pylist() for column in table.columns)))

    @property
    def columns(self):
        return self.arrow().column_names

    def __len__(self):
        return self.arrow().num_rows

    def __repr__(self):
        return repr(self.arrow())


class Session:
    """One engine and its session. ``path`` keeps databases and tables across
    runs (None: a temporary directory, removed when the session closes).
    ``settings`` (a dict) apply to every statement; server settings such as
    ``max_server_memory_usage`` apply to the engine."""

    def __init__(self, path=None, settings=None):
        pairs = [(name, _setting_text(value)) for name, value in (settings or {}).items()]
        self._connection = Connection(None if path is None else str(path), pairs)

    def query(self, sql, format="TabSeparated"):
        """Runs ``sql`` (one or more statements) and returns the rows in the
        output format ``format`` as bytes; ``"DataFrame"``, ``"ArrowTable"``
        and ``"Polars"`` return those objects instead."""
        convert = _OBJECT_FORMATS.get(format.lower())
        if convert is not None:
            return convert(self.sql(sql))
        with _PythonTables(self, sql):
            data, _summary = self._connection.query(sql, format)
        return data

    def sql(self, sql):
        """Runs ``sql`` and returns a :class:`Result` of its last result set."""
        with _PythonTables(self, sql):
            data, summary = self._connection.arrow(sql)
        return Result(data, summary)

    def register(self, name, data):
        """Makes ``data`` (a pandas or Polars DataFrame, an Arrow table or
        record batch, or any object with ``__arrow_c_stream__``) the session's
        temporary table ``name`` until :meth:`unregister`."""
        self._connection.register(name, _arrow_ipc(data))

    def unregister(self, name):
        self._connection.unregister(name)

    def close(self):
        """Releases the engine (and its data path's lock) once nothing else
        refers to it."""
        self._connection = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_default = None


def _default_session():
    global _default
    if _default is None:
        _default = Session()
    return _default


def query(sql, format="TabSeparated"):
    """:meth:`Session.query` in a process-wide temporary session."""
    return _default_session().query(sql, format)


def sql(sql):
    """:meth:`Session.sql` in a process-wide temporary session."""
    return _default_session().sql(sql)


class _PythonTables:
    """Registers, for one query, the caller's DataFrames and Arrow tables the
    query names as tables, when no table has that name."""

    def __init__(self, session, sql):
        self._session = session
        self._names = []
        candidates = {quoted or plain for quoted, plain in _TABLE_NAME.findall(sql)}
        if not candidates:
            return
        variables = _caller_variables()
        for name in sorted(candidates):
            value = variables.get(name)
            if value is None or not _is_table_like(value) or self._table_exists(name):
                continue
            session.register(name, value)
            self._names.append(name)

    def _table_exists(self, name):
        quoted = "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"
        data, _ = self._session._connection.query(f"EXISTS TABLE {quoted}", "TabSeparated")
        return data.strip() == b"1"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for name in self._names:
            self._session.unregister(name)


def _caller_variables():
    """The locals over the globals of the first frame outside this package."""
    frame = inspect.currentframe()
    while frame is not None and _in_package(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
    if frame is None:
        return {}
    return {**frame.f_globals, **frame.f_locals}


def _in_package(module):
    return module == __name__ or module.startswith(__name__ + ".")


def _is_table_like(value):
    kind = type(value)
    module = kind.__module__.split(".")[0]
    return (module in ("pandas", "polars") and kind.__name__ == "DataFrame") or \
        (module == "pyarrow" and kind.__name__ in ("Table", "RecordBatch")) or \
        hasattr(value, "__arrow_c_stream__")


def _arrow_ipc(data):
    """``data`` as an Arrow IPC stream, in the types the engine reads: plain
    strings and lists, dictionaries decoded, and a column without nulls not
    nullable (``Int64``, not ``Nullable(Int64)``, as ClickHouse infers)."""
    import pyarrow as pa
    table = _arrow_table(data)
    columns, fields = [], []
    for field, column in zip(table.schema, table.columns):
        target = _engine_type(field.type)
        if target != field.type:
            column = column.cast(target)
        columns.append(column)
        fields.append(pa.field(field.name, target, nullable=column.null_count > 0))
    table = pa.Table.from_arrays(columns, schema=pa.schema(fields))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _arrow_table(data):
    import pyarrow as pa
    kind = type(data)
    module = kind.__module__.split(".")[0]
    if module == "pandas":
        return pa.Table.from_pandas(data, preserve_index=False)
    if module == "polars":
        return data.to_arrow()
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, pa.Table):
        return data
    return pa.table(data)


def _engine_type(arrow_type):
    import pyarrow as pa
    types = pa.types
    if types.is_dictionary(arrow_type):
        return _engine_type(arrow_type.value_type)
    if types.is_large_string(arrow_type) or types.is_string_view(arrow_type):
        return pa.string()
    if types.is_large_binary(arrow_type) or types.is_binary_view(arrow_type):
        return pa.binary()
    if types.is_large_list(arrow_type) or types.is_list_view(arrow_type) or \
            types.is_large_list_view(arrow_type):
        return pa.list_(_engine_type(arrow_type.value_type))
    if types.is_list(arrow_type):
        return pa.list_(_engine_type(arrow_type.value_type))
    return arrow_type


def _setting_text(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)
