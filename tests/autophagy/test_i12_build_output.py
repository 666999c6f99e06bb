"""Issue 12, finding 8: a folder called build/ or dist/ is output only where it is a project's own
output — never inside a virtual environment, ``node_modules`` or installed packages, never a
package's source (it holds ``__init__.py`` / a manifest), never what a package.json ships —
unless the user's own rules name that very path."""

from __future__ import annotations

import json

from autophagy.support import tree


def _installed_and_shipped(ws) -> None:
    venv = ".venv/lib/python3.11/site-packages/pip/_internal/operations"
    ws.put(".venv/pyvenv.cfg", "home = /usr/bin\n")
    ws.put(f"{venv}/build/__init__.py", "")
    ws.put(f"{venv}/build/wheel.py", "def build_wheel(): ...\n")
    ws.put(".venv/lib/python3.11/site-packages/foo/dist/data.bin", b"\x00")  # no __init__.py: the venv says it
    ws.put("env-conda/conda-meta/history", "")
    ws.put("env-conda/lib/pkg/build/x.py", "")
    ws.put("node_modules/left-pad/package.json", json.dumps({"name": "left-pad", "main": "index.js"}))
    ws.put("node_modules/left-pad/dist/left-pad.min.js", "module.exports=1")
    ws.put("other/site-packages/bar/build/y.py", "")
    ws.put("web/package.json", json.dumps({"name": "web", "files": ["dist", "README.md"]}))
    ws.put("web/dist/index.js", "export {}")
    ws.put("lib/package.json", json.dumps({"name": "lib", "exports": {".": "./build/index.js"}}))
    ws.put("lib/build/index.js", "export {}")
    ws.put("tools/build/__init__.py", "")
    ws.put("tools/build/steps.py", "")
    ws.put("app/dist/pyproject.toml", "[project]\nname = 'x'\n")


def test_build_output_is_never_matched_inside_environments_or_packages(ws) -> None:
    _installed_and_shipped(ws)
    ws.put("proj/build/out.o")          # the project's own output: still cleaned
    ws.put("proj/dist/app-1.0.tar.gz")
    ws.put("web/src/main.ts")
    before = tree(ws.workspace)
    made = ws.plan("small")
    assert {i.rel for i in made.items} == {"proj/build", "proj/dist"}
    result = ws.execute(made.plan_id)
    assert set(result["deleted"]) == {"proj/build/", "proj/dist/"}
    after = tree(ws.workspace)
    assert {k: v for k, v in before.items() if not k.startswith("proj/")} == \
        {k: v for k, v in after.items() if not k.startswith(("proj/", ".autophagy"))}


def test_the_users_own_rule_naming_the_path_wins(ws, tmp_path, monkeypatch) -> None:
    ws.put("node_modules/left-pad/package.json", json.dumps({"name": "left-pad"}))
    ws.put("node_modules/left-pad/dist/left-pad.min.js", "module.exports=1")
    user = tmp_path / "user-config"
    user.mkdir()
    (user / "rules.toml").write_text(
        '[[small]]\nkind = "my_dist"\ncheck = "match"\ntype = "dir"\npatterns = ["node_modules/left-pad/dist/"]\n'
        'category = "redundant"\nreason = "mine"\nreason_zh = "我的"\n', encoding="utf-8")
    (user / "config.toml").write_text('[autophagy]\nrule_files = ["rules.toml"]\n', encoding="utf-8")
    monkeypatch.setenv("APOLLO_CONFIG", str(user / "config.toml"))
    made = ws.plan("small")
    assert [i.rel for i in made.items] == ["node_modules/left-pad/dist"]
    assert made.items[0].kind == "my_dist"
