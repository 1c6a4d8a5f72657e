"""Every public name of every module has a docstring and is in the type
stubs shipped with the package (py.typed)."""

import ast
import inspect
import pathlib

import pytest

import wireseal

MODULES = ["meshtastic", "meshcore", "sphinx", "peat", "bip324", "aescrypt"]
PKG = pathlib.Path(wireseal.__file__).parent


def stub_names(path):
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_py_typed_is_installed():
    assert (PKG / "py.typed").exists()


@pytest.mark.parametrize("name", MODULES)
def test_stubs_cover_public_names(name):
    mod = getattr(wireseal, name)
    public = {n for n in getattr(mod, "__all__", dir(mod)) if not n.startswith("_")}
    public = {n for n in public if not inspect.ismodule(getattr(mod, n))}
    missing = public - stub_names(PKG / f"{name}.pyi")
    assert not missing, f"{name}.pyi lacks {sorted(missing)}"


@pytest.mark.parametrize("name", MODULES + [None])
def test_docstrings(name):
    mod = wireseal if name is None else getattr(wireseal, name)
    assert mod.__doc__
    for n in getattr(mod, "__all__", []):
        obj = getattr(mod, n)
        if callable(obj):
            assert obj.__doc__, f"{name}.{n} has no docstring"
            if inspect.isclass(obj):
                for m, f in vars(obj).items():
                    if not m.startswith("_") and callable(f):
                        assert f.__doc__, f"{name}.{n}.{m} has no docstring"
