"""A stand-in for Streamlit's UploadedFile in AppTest tests (AppTest cannot upload files)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Upload"]


@dataclass(frozen=True)
class Upload:
    """What the pages read of an UploadedFile: its name and its bytes."""

    name: str
    data: bytes

    def getvalue(self) -> bytes:
        return self.data
