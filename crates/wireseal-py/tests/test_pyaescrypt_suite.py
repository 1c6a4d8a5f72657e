"""pyAesCrypt 6.1.1's own test suite (``pyAesCrypt/test_crypto.py``) run
against ``wireseal.aescrypt`` imported as ``pyAesCrypt``.

The test file is not vendored: scripts/test-python.sh extracts it from
PyPI's sdist of pyAesCrypt==6.1.1 and passes its path in
WIRESEAL_PYAESCRYPT_TESTS. The two tests that call the external ``aescrypt``
binary run only when that binary is installed."""

import importlib.util
import os
import shutil
import sys
import unittest

import wireseal.aescrypt
from conftest import skip_or_fail

NEEDS_AESCRYPT_BINARY = {"test_enc_pyAesCrypt_dec_AesCrypt", "test_enc_AesCrypt_dec_pyAesCrypt"}


def test_pyaescrypt_suite_passes(tmp_path, monkeypatch):
    src = os.environ.get("WIRESEAL_PYAESCRYPT_TESTS")
    if not src or not os.path.isfile(src):
        skip_or_fail("pyAesCrypt's test_crypto.py not found (set WIRESEAL_PYAESCRYPT_TESTS; "
                     "scripts/test-python.sh extracts it from the pyAesCrypt 6.1.1 sdist)")
    monkeypatch.setitem(sys.modules, "pyAesCrypt", wireseal.aescrypt)
    spec = importlib.util.spec_from_file_location("pyaescrypt_test_crypto", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.pyAesCrypt is wireseal.aescrypt
    monkeypatch.chdir(tmp_path)

    suite = unittest.TestSuite()
    have_binary = shutil.which("aescrypt") is not None
    ran = []
    for case in unittest.defaultTestLoader.loadTestsFromModule(mod):
        for t in case:
            if t._testMethodName in NEEDS_AESCRYPT_BINARY and not have_binary:
                continue
            suite.addTest(t)
            ran.append(t._testMethodName)
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    assert result.testsRun >= 12, ran
    problems = [f"{t}: {tb}" for t, tb in result.failures + result.errors]
    assert not problems, "\n".join(problems)
