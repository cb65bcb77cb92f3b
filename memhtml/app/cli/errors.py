"""The command line's view of the error table (``memhtml.app.error_codes``), re-exported."""

from memhtml.app.error_codes import (
    ERR_UNKNOWN,
    ERROR_CODES,
    EXIT_OK,
    EXIT_RUNTIME,
    EXIT_USAGE,
    ErrorCode,
    error_code,
    error_code_for,
)

__all__ = [
    "ERROR_CODES",
    "ERR_UNKNOWN",
    "EXIT_OK",
    "EXIT_RUNTIME",
    "EXIT_USAGE",
    "ErrorCode",
    "error_code",
    "error_code_for",
]
