"""``--floating-base --base-motion -``: the floating root's motion from stdin, read as its
file is by every command that reads it more than once (``validate --samples 0``'s two passes,
``retime``'s, and the twist orders the file has, read from its header first: both read stdin
again and found it empty, "-: empty file"); two inputs on stdin are one line's error."""

import pytest
from test_floating_cli import solo  # noqa: F401  (the module's fixture: a Solo-like robot's files)

from conftest import hodyn_here


@pytest.mark.parametrize("command", [
    ["validate", "--samples", "0", "--report", "{out}.json"],
    ["retime", "--factor", "2", "-o", "{out}.csv"],
], ids=["validate-every-sample", "retime-factor"])
def test_the_base_motion_from_stdin_gives_its_files_output(solo, command):  # noqa: F811
    d, urdf, _, _ = solo
    outs = {}
    for name, base, given in (("file", str(d / "base.csv"), None),
                              ("pipe", "-", (d / "base.csv").read_text())):
        outs[name] = d / f"{command[0]}-{name}"
        args = [a.format(out=outs[name]) for a in command[1:]]
        run = hodyn_here(command[0], str(urdf), str(d / "joints.csv"), "--floating-base",
                         "--base-motion", base, *args, "-q", input=given)
        assert run.returncode == 0, run.stderr
    suffix = ".json" if command[0] == "validate" else ".csv"
    one, two = (outs[name].with_name(outs[name].name + suffix).read_text()
                for name in ("file", "pipe"))
    if command[0] == "validate":  # the reports name their base motion's file
        one = one.replace(str(d / "base.csv"), "-")
    assert one == two


@pytest.mark.parametrize("options, named", [
    (["--wrench", "-"], "the trajectory and --wrench"),
    (["--floating-base", "--base-motion", "-"], "the trajectory and --base-motion"),
])
def test_two_inputs_on_stdin_are_refused_in_a_line(solo, options, named):  # noqa: F811
    d, urdf, _, _ = solo
    run = hodyn_here("compute", str(urdf), "-", *options, "-o", str(d / "never.csv"),
                     input=(d / "joints.csv").read_text())
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == \
        f"hodyn: error: {named} cannot both come on stdin"
    assert not (d / "never.csv").exists()
