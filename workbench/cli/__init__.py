"""The ``workbench`` command line. Every command is declared once in workbench/cli/registry.py,
which imports a command's module only when that command runs; errors the user can act on print
one line and exit 1, bad usage exits 2, and any other failure is logged with its traceback and
reported in one line."""

from __future__ import annotations

# first, before the standard library: Ctrl-C while everything else loads prints one line
from workbench.cli import _startup

# isort: split
import argparse
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence

from workbench import __version__
from workbench.cli.display import safe_output
from workbench.cli.registry import DEFAULT_RUNS, add_commands, runner
from workbench.errors import WorkbenchError
from workbench.logging_setup import configure_logging, log_file

log = logging.getLogger(__name__)
_startup.loaded()

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="VLM Workbench: blind human and LLM-judge evaluation of vision-language "
        "models. With no command, opens the app on the last bundle or the demo bundle.",
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    add_commands(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    with safe_output():  # names from data are printed, never obeyed by the terminal
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    args: argparse.Namespace | None = None
    try:
        args = _configured(argv)
        handler = getattr(args, "handler", None) or runner(DEFAULT_RUNS)
        return int(handler(args) or EXIT_OK)
    except WorkbenchError as error:
        print(f"workbench: {error}", file=sys.stderr)
        # a request that cannot be answered as asked is bad usage (RequestError says so)
        return int(getattr(error, "exit_code", EXIT_FAILED))
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_went_away()
    except OSError as error:  # the file system said no (full, read-only, not a real file)
        log.exception("file system error in %s", getattr(args, "command", None))
        where = f"{error.filename}: " if error.filename else ""
        print(f"workbench: {where}{error.strerror or error}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as error:
        log.exception("unexpected failure in %s", getattr(args, "command", None))
        print(
            f"workbench: internal error: {type(error).__name__}: {error} (details in {log_file()})",
            file=sys.stderr,
        )
        return EXIT_FAILED


def _reader_went_away() -> int:
    """The output's reader closed the pipe (``workbench info B | head -1``): stop quietly, as
    ``cat`` does. Standard output is pointed at /dev/null so that the interpreter's last flush
    at exit does not raise the same error again (the recipe of Python's ``signal`` docs)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_FAILED


def _configured(argv: Sequence[str] | None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    configure_logging(verbose=args.verbose)
    return args


def console_main() -> int:
    """Entry point of the ``workbench`` command, ``python -m workbench.cli`` and the frozen
    app: :func:`main`, after which Ctrl-C is ignored while the interpreter shuts down. Python
    gives SIGINT back its default action at shutdown, so a Ctrl-C in that last moment would
    otherwise kill the finished command by the signal and lose its exit status."""
    try:
        return main(sys.argv[1:])
    except KeyboardInterrupt:  # between main's own handling and here: still one line
        print("workbench: interrupted", file=sys.stderr)
        return 130
    finally:
        with contextlib.suppress(ValueError):  # not the main thread: nothing to set
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def gui_main() -> int:
    """Entry point of the GUI script: the same as ``workbench`` with no command."""
    return console_main()
