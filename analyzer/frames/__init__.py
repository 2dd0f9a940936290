"""polars frames derived declaratively from column specs (see :mod:`analyzer.frames.columns`)."""

from analyzer.frames.build import (
    empty_frame,
    frame_from_rows,
    steps_frame,
    traces_frame,
    trajectories_from_frames,
)
from analyzer.frames.columns import (
    ANNOTATION_COLUMNS,
    FINDING_COLUMNS,
    STEP_COLUMNS,
    TRACE_COLUMNS,
    ColumnSpec,
    schema_of,
)

__all__ = [
    "ANNOTATION_COLUMNS",
    "FINDING_COLUMNS",
    "STEP_COLUMNS",
    "TRACE_COLUMNS",
    "ColumnSpec",
    "empty_frame",
    "frame_from_rows",
    "schema_of",
    "steps_frame",
    "traces_frame",
    "trajectories_from_frames",
]
