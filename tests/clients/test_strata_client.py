"""`strata client` against `strata server`, and the interactive prompts of
`strata client` and `strata local` driven through a pseudo-terminal (tmux
send-keys and capture-pane), as a person at a terminal would.
"""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

from strata_server import ServerTestCase, strata_binary

# A query that runs until it is cancelled, reading rows all the while.
ENDLESS = "SELECT count() FROM numbers_mt(1000000000000) WHERE NOT ignore(number);"


class ClientBatchTest(ServerTestCase):

    def client(self, *args, input=None):
        return subprocess.run(
            [strata_binary(), "client", "--port", str(self.server.port), *args],
            input=input, capture_output=True, text=True, timeout=60)

    def test_query_and_formats(self):
        run = self.client("-q", "SELECT number, toString(number) FROM numbers(2)")
        self.assertEqual((run.returncode, run.stdout, run.stderr), (0, "0\t0\n1\t1\n", ""))
        run = self.client("--format", "JSONEachRow", "-q", "SELECT 1 AS a")
        self.assertEqual(run.stdout, '{"a":1}\n')
        run = self.client("-q", "SELECT 'x' AS s FORMAT CSVWithNames")
        self.assertEqual(run.stdout, '"s"\n"x"\n')

    def test_parameters_and_settings_from_the_command_line(self):
        run = self.client("--param_x=41", "--max_threads", "3", "-q",
                          "SELECT {x:UInt8} + 1, getSetting('max_threads')")
        self.assertEqual(run.stdout, "42\t3\n", run.stderr)

    def test_local_takes_parameters_too(self):
        run = subprocess.run([strata_binary(), "local", "--param_x=41", "-q",
                              "SELECT {x:UInt8} + 1, '{x:UInt8}'"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.stdout, "42\t{x:UInt8}\n", run.stderr)

    def test_statements_share_a_session(self):
        run = self.client("-n", "-q", "CREATE DATABASE IF NOT EXISTS session_db; USE session_db; "
                                      "SET max_threads = 5; "
                                      "SELECT currentDatabase(), getSetting('max_threads')")
        self.assertEqual(run.stdout, "session_db\t5\n", run.stderr)
        run = self.client("--database", "session_db", "-q", "SELECT currentDatabase()")
        self.assertEqual(run.stdout, "session_db\n", run.stderr)

    def test_errors_keep_clickhouse_codes(self):
        run = self.client("-q", "SELEC 1")
        self.assertEqual(run.returncode, 62)
        self.assertIn("Code: 62. DB::Exception:", run.stderr)
        self.assertIn("(SYNTAX_ERROR)", run.stderr)
        run = self.client("--database", "no_such_db", "-q", "SELECT 1")
        self.assertEqual(run.returncode, 81, run.stderr)
        self.assertIn("(UNKNOWN_DATABASE)", run.stderr)
        run = self.client("--user", "nobody", "--password", "wrong", "-q", "SELECT 1")
        self.assertEqual(run.returncode, 516 % 256, run.stderr)
        self.assertIn("(AUTHENTICATION_FAILED)", run.stderr)
        # The server keeps serving after each.
        self.assertEqual(self.client("-q", "SELECT 2").stdout, "2\n")

    def test_an_error_after_rows_were_sent_is_an_error_not_data(self):
        run = self.client("-q", "SELECT throwIf(number = 300000) FROM numbers(400000) "
                                "SETTINGS max_block_size = 1000")
        self.assertEqual(run.returncode, 395 % 256, run.stderr)
        self.assertIn("Code: 395.", run.stderr)
        self.assertNotIn("__exception__", run.stdout)
        self.assertTrue(all(line == "0" for line in run.stdout.splitlines()))

    def test_ignore_error_goes_on(self):
        run = self.client("--ignore-error", "-q", "SELECT 1; SELECT no_such_column; SELECT 3")
        self.assertEqual(run.stdout, "1\n3\n")
        self.assertIn("(UNKNOWN_IDENTIFIER)", run.stderr)

    def test_insert_reads_rows_from_stdin_and_queries_from_a_file(self):
        self.client("-q", "CREATE TABLE piped (a UInt32, s String) ENGINE = MergeTree ORDER BY a")
        rows = "".join(f"{i},s{i}\n" for i in range(50_000))
        run = self.client("-q", "INSERT INTO piped FORMAT CSV", input=rows)
        self.assertEqual(run.returncode, 0, run.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".sql") as file:
            file.write("SELECT count() FROM piped;\nSELECT s FROM piped WHERE a = 49999;\n")
            file.flush()
            run = self.client("--queries-file", file.name)
        self.assertEqual(run.stdout, "50000\ns49999\n", run.stderr)

    def test_time_is_printed_per_statement(self):
        run = self.client("-t", "-q", "SELECT 1; SELECT 2")
        self.assertEqual(run.stdout, "1\n2\n")
        self.assertEqual(len(run.stderr.split()), 2)
        for line in run.stderr.split():
            float(line)


class Terminal:
    """A program running in a detached tmux session of its own."""

    def __init__(self, command, env):
        self.socket = f"strata-test-{os.getpid()}-{id(self)}"
        environment = " ".join(f"{k}={v}" for k, v in env.items())
        subprocess.run(["tmux", "-L", self.socket, "new-session", "-d", "-s", "t",
                        "-x", "200", "-y", "50", f"env {environment} {command}"], check=True)
        # The screen stays readable after the program leaves.
        subprocess.run(["tmux", "-L", self.socket, "set-option", "-t", "t", "remain-on-exit", "on"],
                       check=True)

    def type(self, text):
        # tmux reads an argument's final `;` as the end of its command.
        if text.endswith(";"):
            text = text[:-1] + "\\;"
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "t", "-l", text], check=True)

    def press(self, *keys):
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "t", *keys], check=True)

    def screen(self):
        return subprocess.run(["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "t"],
                              capture_output=True, text=True).stdout

    def wait_for(self, text, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} did not appear; the screen:\n{self.screen()}")

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@unittest.skipUnless(shutil.which("tmux"), "tmux is not installed (scripts/setup.sh --tests installs it)")
class PromptTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.home = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.home.cleanup()
        super().tearDownClass()

    def terminal(self, args):
        terminal = Terminal(f"{strata_binary()} {args}", {"HOME": self.home.name})
        self.addCleanup(terminal.close)
        terminal.wait_for("strata :)")
        return terminal

    def check_prompt(self, terminal):
        # A statement over two lines, its PrettyCompact result and summary.
        terminal.type("SELECT 40 +")
        terminal.press("Enter")
        terminal.wait_for(":-]")
        terminal.type("2 AS answer;")
        terminal.press("Enter")
        # The peak line is the summary's last, so the whole result is on screen.
        screen = terminal.wait_for("Peak memory usage:")
        self.assertIn("answer", screen)
        self.assertIn("42", screen)
        self.assertIn("1 row in set. Elapsed:", screen)
        # A long query shows its progress, and Ctrl-C cancels it.
        terminal.type(ENDLESS)
        terminal.press("Enter")
        screen = terminal.wait_for("Progress: ")
        self.assertIn("rows/s.", screen)
        terminal.press("C-c")
        terminal.wait_for("Query was cancelled")
        self.assertNotIn("Progress: ", terminal.screen())
        # Tab completes a table name after FROM.
        terminal.type("SELECT count() AS rows_in_target FROM complet")
        terminal.press("Tab")
        terminal.wait_for("FROM completion_target")
        terminal.type(";")
        terminal.press("Enter")
        terminal.wait_for("─rows_in_target─")
        terminal.type("exit")
        terminal.press("Enter")
        terminal.wait_for("Bye.")

    def test_client_prompt(self):
        self.server.query("CREATE TABLE IF NOT EXISTS completion_target (a UInt8) ENGINE = Memory")
        terminal = self.terminal(f"client --port {self.server.port}")
        self.assertIn("Connected to Strata server version", terminal.screen())
        self.check_prompt(terminal)
        # Nothing is left running on the server.
        running = self.server.query("SELECT count() FROM system.processes "
                                    "WHERE query NOT LIKE '%system.processes%'")
        self.assertEqual(running, "0\n")

    def test_local_prompt(self):
        path = os.path.join(self.home.name, "local")
        subprocess.run([strata_binary(), "local", "--path", path, "-q",
                        "CREATE TABLE completion_target (a UInt8) ENGINE = MergeTree ORDER BY a"],
                       check=True)
        terminal = self.terminal(f"local --path {path}")
        self.check_prompt(terminal)


if __name__ == "__main__":
    unittest.main()
