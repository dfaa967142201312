"""A typed filter builder rendered to HBase's filter language: the bytes a scan sends as
TScan.filterString, so the same filter runs on redbase and on a real HBase. The rendering is
fixed byte for byte (docs/sdks.md, "Filters"; checked by sdks/vectors/filters.json)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence, Union

if TYPE_CHECKING:
    from .client import KeyRange
    from .values import Column

_OPS = {"eq": b"=", "ne": b"!=", "lt": b"<", "le": b"<=", "gt": b">", "ge": b">="}


class FilterError(ValueError):
    """A filter that cannot be rendered: an empty all-of/any-of, a negative page size, a
    comparison on a pattern column, an operand the column's codec refuses."""


def literal(raw: bytes) -> bytes:
    """A filter-language string: single-quoted, each quote inside doubled, other bytes raw."""
    return b"'" + raw.replace(b"'", b"''") + b"'"


class Filter:
    """One filter expression. Combine with `Filter.all(...)` / `Filter.any(...)` or `&` / `|`."""

    __slots__ = ("text", "strips_values")

    def __init__(self, text: bytes, strips_values: bool = False) -> None:
        self.text = text
        #: True when the filter drops cell values (KeyOnlyFilter): rows then carry no values.
        self.strips_values = strips_values

    def render(self) -> bytes:
        """The filter-language bytes (TScan.filterString)."""
        return self.text

    def __repr__(self) -> str:
        return f"Filter({self.text!r})"

    def __and__(self, other: Filter) -> Filter:
        return Filter.all(self, other)

    def __or__(self, other: Filter) -> Filter:
        return Filter.any(self, other)

    @staticmethod
    def _join(word: bytes, what: str, filters: Sequence[Filter]) -> Filter:
        if not filters:
            raise FilterError(f"{what} needs at least one filter")
        for f in filters:
            if not isinstance(f, Filter):
                raise FilterError(f"{what} takes filters, not {type(f).__name__}")
        strips = any(f.strips_values for f in filters)
        if len(filters) == 1:
            return Filter(filters[0].text, strips)
        return Filter(word.join(b"(" + f.text + b")" for f in filters), strips)

    @staticmethod
    def all(*filters: Filter) -> Filter:
        """Rows every filter passes: `(A) AND (B)`; one filter renders bare."""
        return Filter._join(b" AND ", "all", filters)

    @staticmethod
    def any(*filters: Filter) -> Filter:
        """Rows some filter passes: `(A) OR (B)`; one filter renders bare."""
        return Filter._join(b" OR ", "any", filters)

    @staticmethod
    def value(column: Union[Column[Any], Any], op: str, operand: Any) -> Filter:
        """`column <op> operand` on a plain typed column (op: eq ne lt le gt ge), the operand
        encoded by the column's codec and compared as bytes; rows without the cell pass
        nothing (SingleColumnValueFilter with filterIfMissing and latestVersionOnly)."""
        from .values import Column, ValueEncodingError

        if not isinstance(column, Column):
            raise FilterError(
                f"a value comparison needs a plain column, not {getattr(column, 'field', column)!r}"
                " (pattern columns have no single qualifier)"
            )
        if op not in _OPS:
            raise FilterError(f"unknown comparison {op!r}: one of {', '.join(_OPS)}")
        try:
            raw = column.encode(operand)
        except (ValueEncodingError, TypeError, ValueError, AttributeError) as e:
            raise FilterError(f"column {column.field}: operand {operand!r}: {e}") from None
        return Filter(
            b"SingleColumnValueFilter("
            + literal(column.family)
            + b", "
            + literal(column.qualifier)
            + b", "
            + _OPS[op]
            + b", "
            + literal(b"binary:" + raw)
            + b", true, true)"
        )

    @staticmethod
    def prefix(keys: KeyRange) -> Filter:
        """Rows whose key starts with a typed prefix (`Key.prefix(...)`): `PrefixFilter('...')`;
        on a salted table one per bucket, any of them."""
        return Filter.any(*(Filter(b"PrefixFilter(" + literal(start) + b")") for start, _ in keys.ranges))

    @staticmethod
    def page(n: int) -> Filter:
        """At most `n` rows per region scanned (HBase's PageFilter)."""
        if isinstance(n, bool) or not isinstance(n, int):
            raise FilterError(f"page size must be an integer, not {n!r}")
        if n < 0:
            raise FilterError(f"page size must not be negative: {n}")
        return Filter(b"PageFilter(%d)" % n)

    @staticmethod
    def key_only() -> Filter:
        """Cells without their values (rows come back with keys only)."""
        return Filter(b"KeyOnlyFilter()", strips_values=True)

    @staticmethod
    def first_key_only() -> Filter:
        """Only the first cell of each row."""
        return Filter(b"FirstKeyOnlyFilter()")

    @staticmethod
    def timestamps(*timestamps: int) -> Filter:
        """Only cells with exactly these timestamps (ms)."""
        if not timestamps:
            raise FilterError("timestamps needs at least one timestamp")
        for t in timestamps:
            if isinstance(t, bool) or not isinstance(t, int):
                raise FilterError(f"a timestamp must be an integer (ms), not {t!r}")
            if t < 0:
                raise FilterError(f"a timestamp must not be negative: {t}")
        return Filter(b"TimestampsFilter(" + b", ".join(b"%d" % t for t in timestamps) + b")")

    @staticmethod
    def column_prefix(prefix: bytes) -> Filter:
        """Only cells whose qualifier starts with `prefix`."""
        if not isinstance(prefix, bytes):
            raise FilterError(f"a column prefix is bytes, not {type(prefix).__name__}")
        return Filter(b"ColumnPrefixFilter(" + literal(prefix) + b")")
