"""`pip install ./clients/python` into a fresh venv gives an importable, typed package that works."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from support import PACKAGE_DIR, ScriptedEngine

IN_CI = os.environ.get("CI") == "true"


class InstallTest(unittest.TestCase):
    def test_pip_install_gives_a_working_package(self) -> None:
        with tempfile.TemporaryDirectory(prefix="verify-hub-python-") as tmp:
            venv = Path(tmp) / "venv"
            made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, timeout=300)
            if made.returncode != 0:
                note = f"python3 -m venv does not work here (Debian: apt-get install python3-venv): {made.stderr.strip()}"
                if IN_CI:
                    self.fail(note)
                self.skipTest(note)
            # Install from a copy, so the build leaves nothing (build/, *.egg-info) in the source tree.
            source = Path(tmp) / "verify-hub-client"
            shutil.copytree(PACKAGE_DIR, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
            python = str(venv / ("Scripts" if os.name == "nt" else "bin") / "python")
            # --no-index: the package builds with its own standard-library backend (build_backend/), so no
            # package index is needed, here or anywhere.
            command = [python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", str(source)]
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                self.fail("pip install ./clients/python failed:\n" + done.stdout + done.stderr)

            fake = ScriptedEngine()
            try:
                script = (
                    "import sys, verify_hub, pathlib\n"
                    "assert 'site-packages' in verify_hub.__file__, verify_hub.__file__\n"
                    "assert (pathlib.Path(verify_hub.__file__).parent / 'py.typed').exists()\n"
                    "data, error = verify_hub.Client('vh_installed_key_0123456789abcdef', sys.argv[1]).verify('john@acme-mail.com')\n"
                    "print(data['risk'], error)\n"
                )
                # Run outside the source tree so only the installed copy can be imported.
                ran = subprocess.run([python, "-c", script, fake.url], cwd=tmp, capture_output=True, text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
            finally:
                fake.close()
            self.assertEqual(ran.returncode, 0, ran.stderr)
            self.assertEqual(ran.stdout.strip(), "safe None")
            self.assertEqual(fake.seen[0][1], "vh_installed_key_0123456789abcdef")


if __name__ == "__main__":
    unittest.main()
