"""The `/play` page of `strata server` in headless Chromium: the page loads
with no external assets, runs a query, and shows the result, the counted
statistics and errors in its DOM. A screenshot is kept in
build/test-artifacts/play.png.
"""

import base64
import html.parser
import os
import shutil
import subprocess
import tempfile
import unittest

from strata_server import ServerTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(ROOT, "build", "test-artifacts")


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Elements(html.parser.HTMLParser):
    """The text of each element with an id, and the rows of the result table."""

    def __init__(self):
        super().__init__()
        self.by_id = {}
        self.open_ids = []
        self.rows = []
        self.cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.open_ids.append((tag, attrs.get("id")))
        if attrs.get("id"):
            self.by_id.setdefault(attrs["id"], "")
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        while self.open_ids:
            open_tag, _ = self.open_ids.pop()
            if open_tag == tag:
                break

    def handle_data(self, data):
        for _, element_id in self.open_ids:
            if element_id:
                self.by_id[element_id] += data
        if self.cell is not None:
            self.cell += data


@unittest.skipUnless(chromium(), "Chromium is not installed (scripts/setup.sh --tests installs it)")
class PlayPageTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.profile = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.profile.cleanup()
        super().tearDownClass()

    def browse(self, query, *extra):
        """Chromium's output for the page opened with `query` in its link."""
        url = (f"http://127.0.0.1:{self.server.port}/play#"
               + base64.b64encode(query.encode()).decode())
        # Without the background-networking flags Chromium tries to reach
        # Google's hosts, which a machine without internet refuses.
        command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                   "--no-first-run", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync",
                   f"--user-data-dir={self.profile.name}", "--virtual-time-budget=20000",
                   *extra, url]
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout

    def page(self, query):
        elements = Elements()
        elements.feed(self.browse(query, "--dump-dom"))
        return elements

    def test_a_linked_query_runs_and_shows_its_result(self):
        page = self.page("SELECT number AS n, toString(number * 2) AS s FROM numbers(3)")
        self.assertEqual(page.rows, [["n", "s"], ["0", "0"], ["1", "2"], ["2", "4"]])
        stats = page.by_id["stats"]
        self.assertIn("3 rows in set", stats)
        self.assertIn("Read 3 rows, 24 B.", stats)
        self.assertEqual(page.by_id["error"], "")

    def test_an_error_shows_in_clickhouse_form(self):
        page = self.page("SELEC 1")
        self.assertIn("Code: 62. DB::Exception:", page.by_id["error"])
        self.assertIn("(SYNTAX_ERROR)", page.by_id["error"])
        self.assertEqual(page.rows, [])

    def test_screenshot(self):
        os.makedirs(ARTIFACTS, exist_ok=True)
        path = os.path.join(ARTIFACTS, "play.png")
        if os.path.exists(path):
            os.remove(path)
        self.browse("SELECT name, is_aggregate FROM system.functions ORDER BY name LIMIT 12",
                    f"--screenshot={path}", "--window-size=1200,700")
        with open(path, "rb") as file:
            self.assertEqual(file.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
