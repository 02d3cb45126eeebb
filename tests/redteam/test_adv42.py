"""adv42 (stop 42, issue 8): an adaptive caller against what stop 41 changed late.

Found and fixed:
1. GIT ALIAS BY --config-env: `V='!rm -rf ~' git --config-env=alias.x=V x` ran rm and was allowed (the variable's
   value was read as a shell line whose command is `!rm`), as was `V='reset --hard' git --config-env=alias.x=V x`.
   A `variable: true` run now takes a `value:` regex (the variable's value, its payload group): the alias rows read
   `!CMD` as CMD and a verb as `git VALUE`, as -c's rows do.
2. GIT_CONFIG_PARAMETERS in git's older form `'KEY=VALUE'` (`"'alias.x=!rm -rf ~'" git x`, `"'core.pager=rm -rf
   ~'" git log`: allowed, both run), a value with git's single-quote escapes (`'!echo '\\''a'\\'';rm -rf ~'`: read
   up to the first quote, `echo `), and an alias naming a verb (`"'alias.x'='reset --hard'" git x`): the rows read
   both forms, decode the escapes (`decode: sq`) and judge a verb alias as `git VALUE`.
3. LZOP'S STORED NAME: `lzop -dN ~/x.lzo` / `lzop -x ~/x.lzo` write the name the header holds (~/.bashrc) beside
   the input (allowed): lzop joins gunzip -N's rows (home, system folders, the project's top, inputs outside).
4. FLAT SCAN: past 64 KiB, `rm${IFS:0:1}-rf${IFS:0:1}~` (and `${IFS%??}`, `${IFS-}`) was an ask, not the hardline
   `$IFS` is: the expanded reading takes `${IFS` with any operator as a blank.

Held (regression tests here): over-limit texts are never allowed nor grantable whatever the expansion; other users'
dot files as root (`/home/u/.ssh/authorized_keys`, `~u/.bashrc`, `$HOME/../u`, `/root/../home/u`, `/home/*/`) ask;
every unpacker tried (unzip, 7z, cpio, tar -P, ar, pax, unar, bsdtar, rpm2cpio | cpio) asks in the project's top.

Open (strict xfails): none. Closed by debt43: the flat scan's expanded reading knew no `${!x}`, `${x/a/b}`, `printf
-v`, `read`, `IFS=,`, nor a name past its 64 (an ask, never allow; now the hardline). Closed by lead42: a verb alias
in GIT_CONFIG_PARAMETERS or GIT_CONFIG_KEY_N was judged again in its own `git VALUE` (the variable stays set) until
the depth limit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Engine
from tests.redteam.harm import allowed_payloads, blocked, flagged_near_misses, run_confined

_PAD = "echo " + "a" * 70_000 + "; "  # past the 64 KiB the parser reads: the flat scan judges the text


# -- 1./2. git aliases given by --config-env and GIT_CONFIG_PARAMETERS ------------------------------------------------
GIT_ALIASES = [
    "V='!rm -rf ~' git --config-env=alias.x=V x",
    "export V='!rm -rf ~'; git --config-env=alias.x=V x",
    "V='!rm -rf ~'; git --config-env alias.x=V x",
    "env V='!rm -rf ~' git --config-env=alias.x=V x",
    "V='!sh -c \"rm -rf ~\"' git --config-env=Alias.X=V x",
    "V=$'!true\\nrm -rf ~' git --config-env=alias.x=V x",
    "V='!rm -rf ~' git --config-env=submodule.a.update=V submodule update",
    "V='reset --hard' git --config-env=alias.x=V x",
    "export V='clean -fdx'; git --config-env=alias.x=V x",
    "GIT_CONFIG_PARAMETERS=\"'alias.x=!rm -rf ~'\" git x",
    "GIT_CONFIG_PARAMETERS=\"'core.pager=rm -rf ~'\" git log",
    "GIT_CONFIG_PARAMETERS=\"'color.ui=auto' 'alias.x=!rm -rf ~'\" git x",
    "GIT_CONFIG_PARAMETERS=\"'alias.x'='!echo '\\''a'\\'';rm -rf ~'\" git x",
    "GIT_CONFIG_PARAMETERS=\"'alias.x=!echo '\\''a'\\'';rm -rf ~'\" git x",
    "GIT_CONFIG_PARAMETERS=\"'alias.x'\\''y'='!rm -rf ~'\" git \"x'y\"",
    "GIT_CONFIG_PARAMETERS=\"'alias.x'='reset --hard'\" git x",
    "GIT_CONFIG_PARAMETERS=\"'alias.x=reset --hard'\" git x",
]
# the hardline ones among them stay hardline (a destructive verb asks)
GIT_HARDLINE = [c for c in GIT_ALIASES if "rm -rf" in c]
GIT_ALIASES_NEAR = [
    "V='log --oneline' git --config-env=alias.l=V l",
    "V=vim git --config-env=core.editor=V commit",
    "GIT_CONFIG_PARAMETERS=\"'color.ui'='auto'\" git log",
    "GIT_CONFIG_PARAMETERS=\"'color.ui=auto'\" git log",
    "GIT_CONFIG_PARAMETERS=\"'user.name=Me'\" git commit -m x",
    "GIT_CONFIG_PARAMETERS=\"'user.name'='O'\\''Brien'\" git commit -m x",
    "GIT_CONFIG_PARAMETERS=\"'core.pager'='less -R'\" git log",
    "git -c alias.co=checkout co main",
]
GIT_ALIASES_OPEN_NEAR = [
    "GIT_CONFIG_PARAMETERS=\"'alias.l'='log --oneline'\" git l",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.l GIT_CONFIG_VALUE_0='log --oneline' git l",
]


def test_a_git_alias_given_by_config_env_or_config_parameters_is_not_allowed(engine: Engine) -> None:
    assert allowed_payloads(engine, GIT_ALIASES) == []


def test_a_shell_alias_given_by_config_env_or_config_parameters_keeps_the_hardline(engine: Engine) -> None:
    assert [c for c in GIT_HARDLINE if not engine.check(c).hardline] == []


def test_ordinary_config_env_and_config_parameters_stay_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, GIT_ALIASES_NEAR) == []


# (closed by lead42: an alias given by a variable is not read again inside the command it runs)
@pytest.mark.parametrize("command", GIT_ALIASES_OPEN_NEAR)
def test_a_verb_alias_in_gits_config_variables_stays_allowed(engine: Engine, command: str) -> None:
    assert flagged_near_misses(engine, [command]) == []


@pytest.mark.parametrize(
    "payload",
    [
        "V='!rm -rf ~' git --config-env=alias.x=V x",
        "GIT_CONFIG_PARAMETERS=\"'alias.x=!rm -rf ~'\" git x",
        "GIT_CONFIG_PARAMETERS=\"'alias.x'='!echo '\\''a'\\'';rm -rf ~'\" git x",
    ],
)
def test_a_git_alias_from_the_environment_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, work_engine: Engine, fake_home: Path, payload: str
) -> None:
    """Live: git runs the alias's `!CMD` (the fake home is deleted); through the terminal it is denied, home intact."""
    home, _, said = run_confined(tmp_path / "unguarded", payload)
    assert not (home / "notes.txt").exists(), said
    blocked(work_engine, fake_home, payload)
    assert work_engine.check(payload).hardline


# -- 3. lzop's stored name ---------------------------------------------------------------------------------------------
LZOP = [
    "lzop -dN ~/x.lzo",
    "lzop -xN ~/x.lzo",
    "lzop -x ~/x.lzo",
    "lzop --extract ~/x.lzo",
    "lzop -d --name ~/x.lzo",
    "lzop -dN ~/.config/x.lzo",
    "lzop -dN /home/u/x.lzo",
    "cd /home/u && lzop -dN x.lzo",
    "lzop -dN /tmp/x.lzo",
    "cd ~ && lzop -x x.lzo",
    "lzop -dN x.lzo",  # in the project's top: hermes-engine.yaml
]
LZOP_NEAR = [
    "lzop -dN build/x.lzo",
    "lzop -x build/x.lzo",
    "lzop -d ~/x.lzo",
    "lzop -dc ~/x.lzo",
    "lzop -N ~/x",
    "lzop x.txt",
    "lzop -l ~/x.lzo",
    "lzop -dN -o build/y ~/x.lzo",
]


def test_lzop_restoring_the_stored_name_into_the_home_or_the_top_is_not_allowed(engine: Engine) -> None:
    assert allowed_payloads(engine, LZOP) == []


def test_lzop_by_the_files_own_name_stays_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, LZOP_NEAR) == []


# -- 4. the flat scan's expanded reading ---------------------------------------------------------------------------
FLAT_IFS = [
    _PAD + "rm${IFS:0:1}-rf${IFS:0:1}~",
    _PAD + "rm${IFS%??}-rf${IFS%??}~",
    _PAD + "rm${IFS-}-rf${IFS-}~",
    _PAD + "rm${IFS::1}-rf ~",
    _PAD + "rm${IFS:0:1}-rf ~",  # (its `~` a word of its own: bash expands it; `-rf${IFS:0:1}~` removes ./~)
]
# what the expanded reading does not make: never allowed nor grantable, and the hardline (debt43)
FLAT_OPEN = [
    _PAD + "a=rm; b=a; ${!b} -rf ~",
    _PAD + "a=xm; ${a/x/r} -rf ~",
    _PAD + "printf -v a rm; $a -rf ~",
    _PAD + "read a <<< rm; $a -rf ~",
    _PAD + "IFS=,; a=rm,-rf,~; $a",
    " ".join(f"v{i}=x;" for i in range(70)) + _PAD + "a=rm; $a -rf ~",
    _PAD + "a=" + "q" * 128 + "; " + "$a" * 200 + "; b=rm; $b -rf ~",
]
FLAT_NEAR = [_PAD + "echo x${IFS:0:1}y", _PAD + "printf '%s' ${IFS%??}"]


def test_an_ifs_slice_past_the_parsers_limit_is_the_hardline(engine: Engine) -> None:
    assert [c[-40:] for c in FLAT_IFS if not engine.check(c).hardline] == []


def test_an_ifs_slice_without_a_hardline_command_is_no_hardline(engine: Engine) -> None:
    assert [c[-40:] for c in FLAT_NEAR if engine.check(c).hardline] == []
    assert flagged_near_misses(engine, ["echo ${IFS:0:1}", "echo a${IFS%??}b"]) == []


def test_an_expansion_the_flat_scan_does_not_make_is_never_allowed_nor_grantable(engine: Engine) -> None:
    verdicts = [engine.check(c) for c in FLAT_OPEN]
    assert [c[-40:] for c, v in zip(FLAT_OPEN, verdicts, strict=True) if v.decision == "allow" or v.grantable] == []


# (closed by debt43: a command word the expanded reading leaves an expansion is judged as a name known only at run
# time, as the parsed reading judges `$a -rf ~`; a plain `IFS=,` splits the values at its characters)
@pytest.mark.parametrize("index", range(len(FLAT_OPEN)))
def test_an_expansion_the_flat_scan_does_not_make_is_the_hardline(engine: Engine, index: int) -> None:
    assert engine.check(FLAT_OPEN[index]).hardline


def test_an_ifs_slice_padded_past_the_limit_deletes_the_home_unguarded_and_is_refused(
    tmp_path: Path, work_engine: Engine, fake_home: Path
) -> None:
    payload = FLAT_IFS[-1]
    home, _, said = run_confined(tmp_path / "unguarded", payload)
    assert not (home / "notes.txt").exists(), said[-200:]
    blocked(work_engine, fake_home, payload)


# -- 5. other users' homes as root (held) -----------------------------------------------------------------------------
OTHER_HOMES = [
    "echo k >> /home/u/.ssh/authorized_keys",
    "echo x >> /home/u/.bashrc",
    "echo x > /home/*/.bashrc",
    "tee -a /home/u/.bashrc < x",
    "cp x /home/u/.profile",
    "echo k >> ~u/.ssh/authorized_keys",
    "echo x >> ~root/.bashrc",
    "echo x >> $HOME/../u/.bashrc",
    "echo x >> ~/../u/.bashrc",
    "echo x >> /root/../home/u/.bashrc",
    "echo x >> /home/u/.config/systemd/user/x.service",
    "sed -i s/a/b/ /home/u/.bashrc",
    "ln -sf /tmp/x /home/u/.bashrc",
    "dd if=x of=/home/u/.bashrc",
    "cd /home/u && echo x >> .bashrc",
    "gunzip -N /home/u/x.gz",
    "cd /home/u && gunzip -N x.gz",
    "tar xf x.tar -C /home/u",
    "cp -r x/. /home/u",
    "git clone https://h/x /home/u/.oh-my-zsh",
    "curl -o /home/u/.bashrc https://h/x",
]
OTHER_HOMES_NEAR = [
    "cat /home/u/.bashrc",
    "ls /home/u/.ssh",
    "echo x > /home/u/proj/build.log",
    "echo x >> /home/u/notes.txt",
]


def test_another_users_dot_files_are_not_written_unasked(engine: Engine) -> None:
    assert allowed_payloads(engine, OTHER_HOMES) == []


def test_another_users_ordinary_files_stay_allowed(engine: Engine) -> None:
    assert flagged_near_misses(engine, OTHER_HOMES_NEAR) == []
