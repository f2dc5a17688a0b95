"""The message of a failed write: the file, the reason in words, what to do next."""

from __future__ import annotations

import errno

from bpe_desktop.views.write_errors import write_failure


def test_a_refused_write_names_a_file_held_open_and_a_folder_one_may_write_to():
    # as Windows says it when another program holds the file open
    exc = PermissionError(errno.EACCES, "Permission denied", "/data/out/table.csv")
    assert write_failure("/data/out/table.csv", exc) == (
        "Could not write /data/out/table.csv: Permission denied.\n\n"
        "An earlier file of that name, if any, is unchanged. If another program has the "
        "file open, close it there; otherwise choose a folder you may write to.")


def test_an_unusual_reason_still_names_the_file_and_a_next_step():
    exc = OSError(errno.EIO, "Input/output error")  # no file name in the error
    assert write_failure("/mnt/usb/plot.png", exc) == (
        "Could not write /mnt/usb/plot.png: Input/output error.\n\n"
        "An earlier file of that name, if any, is unchanged. "
        "Try again, or choose another folder.")


def test_an_error_that_is_not_the_systems_is_given_as_it_is():
    exc = ValueError("cannot export a plot as .txt: use .png or .svg")
    assert write_failure("plot.txt", exc) == (
        "Could not write plot.txt: cannot export a plot as .txt: use .png or .svg")
