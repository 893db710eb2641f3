#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The guest benchmark's redis program on the host: cxlt-bench-redisload against a
real redis-server on a Unix socket of a temporary folder (loads the keyspace, sends
Zipf-skewed GETs, finds no miss, prints JSON; a killed, stopped or absent server is a
clear error, not a hang), and cxlt-bench-prog's server mode (the client's ops/s
becomes the row's result; the server stopped after it; the client outside the
server's memory binding; bad input refused; killed, it kills both).
Run by ctest as: redis_test.py PATH/TO/cxlt-bench-redisload PATH/TO/cxlt-bench-prog.
Fails when neither redis-server nor redis-check-rdb (redis-tools, the same binary)
is installed: scripts/setup installs it, and a test whose setup fails, fails.  Prints
TAP."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tap import check, done  # noqa: E402

LOAD, PROG = sys.argv[1], sys.argv[2]



def redis_binary(tmp):
    """Debian's redis-server package is a symlink to redis-tools' redis-check-rdb: the
    server whenever argv[0] does not name the checker."""
    path = shutil.which("redis-server")
    if path:
        return path
    rdb = shutil.which("redis-check-rdb")
    if not rdb:
        return None
    link = os.path.join(tmp, "redis-server")
    os.symlink(rdb, link)
    return link


def server_args(sock, *extra):
    return ["--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no",
            "--dir", os.path.dirname(sock), *extra]


class Server:
    """A redis-server on a Unix socket, stopped at the end."""

    def __init__(self, binary, tmp, name, *extra):
        self.sock = os.path.join(tmp, name + ".sock")
        self.log = open(os.path.join(tmp, name + ".log"), "w")
        self.p = subprocess.Popen([binary, *server_args(self.sock, *extra)], stdout=self.log,
                                  stderr=subprocess.STDOUT)
        for _ in range(200):
            if os.path.exists(self.sock):
                break
            time.sleep(0.05)

    def cli(self, *args):
        return subprocess.run(["redis-cli", "-s", self.sock, *args], capture_output=True,
                              text=True, timeout=30).stdout

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        self.log.close()


def load(*args, timeout=120):
    p = subprocess.run([LOAD, *args], capture_output=True, text=True, timeout=timeout)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        d = {}
    return p, d


def prog(tmp, *args, cmd, timeout=120):
    out = os.path.join(tmp, "prog.json")
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.monotonic()
    p = subprocess.run([PROG, "--program", "t", "--config", "c", "--interval", "0.2",
                        "--out", out, *args, "--", *cmd], capture_output=True, text=True,
                       timeout=timeout)
    p.seconds = time.monotonic() - t0
    return p, (json.load(open(out)) if os.path.exists(out) else {})


def gone(pid):
    for _ in range(100):
        try:
            os.kill(pid, 0)
            # A zombie counts as gone.
            if open(f"/proc/{pid}/stat").read().split(")")[1].split()[0] == "Z":
                return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    return False


def read_pid(path):
    for _ in range(200):
        if os.path.exists(path) and open(path).read().strip():
            return int(open(path).read().split()[0])
        time.sleep(0.05)
    return 0


# A server of a few lines for server mode: listens on the Unix socket argv[1],
# writes its pid (and its memory policy) to argv[2], lives argv[3] seconds at most.
FAKE = ("import socket, sys, time, os\n"
        "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)\n"
        "open(sys.argv[2], 'w').write(str(os.getpid()) + ' ' + open('/proc/self/numa_maps').readline().split()[1])\n"
        "time.sleep(float(sys.argv[3]))\n")
# A client that prints a result and its own memory policy.
CLIENT = ("import json; print(json.dumps({'ops_per_s': 1234.5, "
          "'policy': open('/proc/self/numa_maps').readline().split()[1]}))")

with tempfile.TemporaryDirectory() as tmp:
    redis = redis_binary(tmp)
    if not redis or not shutil.which("redis-cli"):
        print("not ok 1 setup: redis-server (redis-tools) is not installed: scripts/setup installs it")
        print("1..1")
        sys.exit(1)

    # --- the load generator ---------------------------------------------------------
    # 20000 keys: the top 1% (200) take ~56% of Zipf(0.99)'s draws.
    srv = Server(redis, tmp, "a", "--maxmemory-policy", "allkeys-lfu")
    base = ["--socket", srv.sock, "--keys", "20000", "--value-bytes", "200", "--warmup", "0.5",
            "--duration", "2", "--interval", "0.5"]
    p, d = load(*base, "--seed", "3")
    check("redisload: loads, runs, exit 0 and JSON", p.returncode == 0 and d.get("ops_per_s", 0) > 0
          and d.get("gets", 0) > 1000, p.stderr)
    check("redisload: the keyspace intact, no miss, no error",
          d.get("dbsize") == 20000 and d.get("misses") == 0 and d.get("errors") == 0
          and d.get("wrong_values") == 0, json.dumps({k: d.get(k) for k in ("dbsize", "misses", "errors")}))
    stats = srv.cli("info", "stats")
    hits = int(stats.split("keyspace_hits:")[1].split()[0]) if "keyspace_hits:" in stats else -1
    misses = int(stats.split("keyspace_misses:")[1].split()[0]) if "keyspace_misses:" in stats else -1
    check("redisload: the server saw our GETs hit, none miss",
          misses == 0 and hits >= d.get("gets", 1) + d.get("warmup_ops", 0) * 0.9, f"{hits} {misses}")
    check("redisload: Zipf skew, the top 1% of the keys take most ops",
          d.get("top1pct_keys") == 200 and d.get("top1pct_share", 0) > 0.5, str(d.get("top1pct_share")))
    # The server's own access counts (LFU): the hottest key is the client's rank 1,
    # not the first loaded key.
    hot = d.get("hot_keys", ["?"])
    freqs = {}
    for k in hot[:1] + [f"key:{i:08d}" for i in range(0, 20000, 97)]:
        freqs[k] = int((srv.cli("object", "freq", k).strip() or "0"))
    others = [v for k, v in freqs.items() if k != hot[0]]
    check("redisload: the server counts its rank-1 key hotter than any of 207 others",
          freqs.get(hot[0], 0) > max(others) and hot[0] != "key:00000000", f"{hot[0]}: {freqs.get(hot[0])}, max {max(others)}")
    check("redisload: series of ops/s, the server's memory", len(d.get("series", [])) >= 3 and
          d.get("server_memory", {}).get("used_memory", 0) > 20000 * 200, json.dumps(d.get("server_memory")))
    p2, d2 = load(*base, "--seed", "4")
    check("redisload: another seed, other hot keys", p2.returncode == 0 and d2.get("hot_keys") != hot, p2.stderr)
    p3, d3 = load(*base, "--zipf", "0")
    check("redisload: --zipf 0 is uniform (top 1% ~1%)", p3.returncode == 0 and d3.get("top1pct_share", 1) < 0.03,
          str(d3.get("top1pct_share")))
    p4, d4 = load(*base, "--set-frac", "0.2")
    check("redisload: --set-frac mixes SETs in, the keyspace stays intact",
          p4.returncode == 0 and 0.1 < d4.get("sets", 0) / max(1, d4.get("ops", 1)) < 0.3 and d4.get("errors") == 0,
          json.dumps({k: d4.get(k) for k in ("sets", "ops", "errors")}))

    # Keys gone behind its back: misses, an error, exit 1.
    r = subprocess.Popen([LOAD, *base[:-6], "--warmup", "0", "--duration", "3"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if srv.cli("dbsize").strip() == "20000":
            break
        time.sleep(0.02)
    time.sleep(0.5)
    srv.cli("flushall")
    out, err = r.communicate(timeout=60)
    d = json.loads(out) if out.strip().startswith("{") else {}
    check("redisload: a GET that misses is an error (exit 1, counted, said)",
          r.returncode == 1 and d.get("misses", 0) > 0 and "not intact" in err, f"{r.returncode} {err}")
    srv.stop()

    # A server killed mid-run: a clear error within seconds.
    srv = Server(redis, tmp, "b")
    r = subprocess.Popen([LOAD, "--socket", srv.sock, "--keys", "5000", "--value-bytes", "100",
                          "--warmup", "0", "--duration", "60"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    srv.p.kill()
    t0 = time.monotonic()
    try:
        out, err = r.communicate(timeout=30)
        took = time.monotonic() - t0
    except subprocess.TimeoutExpired:
        r.kill()
        out, err = r.communicate()
        took = 99
    check("redisload: a killed server is an error (exit 2, why), not a hang",
          r.returncode == 2 and took < 10 and ("closed the connection" in err or "broke" in err), f"{r.returncode} {took:.1f} s {err}")
    srv.stop()

    # A server that stops answering: --io-timeout.
    srv = Server(redis, tmp, "c")
    r = subprocess.Popen([LOAD, "--socket", srv.sock, "--keys", "5000", "--value-bytes", "100",
                          "--warmup", "0", "--duration", "60", "--io-timeout", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    srv.p.send_signal(signal.SIGSTOP)
    try:
        out, err = r.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        r.kill()
        out, err = r.communicate()
    srv.p.send_signal(signal.SIGCONT)
    check("redisload: a server that hangs is an error after --io-timeout", r.returncode == 2 and "no progress within 1 s" in err,
          f"{r.returncode} {err}")
    srv.stop()

    p, _ = load("--socket", os.path.join(tmp, "nothing.sock"), "--connect-timeout", "0.3")
    check("redisload: nothing listening: cannot connect, exit 2", p.returncode == 2 and "cannot connect" in p.stderr, p.stderr)
    p, _ = load("--keys", "10")
    check("redisload: no server given is refused", p.returncode != 0 and "--socket" in p.stderr, p.stderr)
    p, _ = load("--socket", "x", "--port", "6379")
    check("redisload: --socket and --port exclude each other", p.returncode != 0 and "excludes" in p.stderr, p.stderr)
    p, _ = load("--socket", "x", "--value-bytes", "4")
    check("redisload: values too short to say their key are refused", p.returncode != 0, p.stderr)

    # --- cxlt-bench-prog's server mode ----------------------------------------------------
    sock = os.path.join(tmp, "p.sock")
    p, d = prog(tmp, "--ready", "unix:" + sock, cmd=[
        redis, *server_args(sock), "--client--", LOAD, "--socket", sock, "--keys", "20000",
        "--value-bytes", "1000", "--warmup", "0.5", "--duration", "2", "--mlock"])
    cl = d.get("client") or {}
    check("prog: server mode runs redis-server and the client, exit 0",
          p.returncode == 0 and d.get("exit_status") == 0 and d.get("mode") == "server", p.stderr)
    check("prog: the client's ops/s is the row's result",
          d.get("ops_per_s") is not None and d.get("ops_per_s") == cl.get("ops_per_s") and cl.get("misses") == 0,
          json.dumps({"ops": d.get("ops_per_s"), "client": cl.get("ops_per_s")}))
    check("prog: the server's pages located (its ~20 MB of values), then the server stopped",
          d.get("steady", {}).get("resident_mb_max", 0) > 20 and d.get("server_stopped_by") == "SIGTERM"
          and d.get("ready_s", -1) >= 0 and d.get("client_s", 0) >= 2.5 and not os.path.exists(sock),
          json.dumps({k: d.get(k) for k in ("server_stopped_by", "ready_s", "client_s")}))

    fake = os.path.join(tmp, "f.sock")
    mark = os.path.join(tmp, "server.pid")

    def fake_server(life="60"):
        for f in (fake, mark):
            if os.path.exists(f):
                os.unlink(f)
        return ["python3", "-c", FAKE, fake, mark, life]

    p, d = prog(tmp, "--ready", "unix:" + fake, "--membind", "0",
                cmd=[*fake_server(), "--client--", "python3", "-c", CLIENT])
    srv_policy = open(mark).read().split()[1] if os.path.exists(mark) else "?"
    check("prog: any client's ops_per_s becomes the result, the server stopped (SIGTERM)",
          p.returncode == 0 and d.get("ops_per_s") == 1234.5 and d.get("server_stopped_by") == "SIGTERM"
          and d.get("client_command", [""])[0] == "python3", p.stderr + json.dumps(d.get("ops_per_s")))
    check("prog: --membind binds the server, not the client",
          srv_policy.startswith("bind") and (d.get("client") or {}).get("policy") == "default",
          f"server {srv_policy}, client {(d.get('client') or {}).get('policy')}")
    p, d = prog(tmp, "--ready", "unix:" + fake, cmd=[*fake_server(), "--client--", "echo", "no json"])
    check("prog: a client without ops_per_s fails the run, and says so",
          p.returncode == 1 and d.get("exit_status") == 1 and "ops_per_s" in p.stderr and d.get("ops_per_s") is None, p.stderr)
    p, d = prog(tmp, "--ready", "unix:" + fake, cmd=[*fake_server(), "--client--", "sh", "-c", "exit 3"])
    check("prog: a client that fails fails the run (its status)",
          p.returncode == 1 and d.get("exit_status") == 3 and "exited with status 3" in p.stderr, p.stderr)
    p, d = prog(tmp, "--ready", "unix:" + fake, cmd=["sh", "-c", "exit 4", "--client--", "true"])
    check("prog: a server that exits before it listens: its status, and why",
          p.returncode == 1 and d.get("exit_status") == 4 and "before it accepted connections" in p.stderr
          and d.get("client_exit_status") is None, p.stderr)
    p, d = prog(tmp, "--ready", "unix:" + fake, "--ready-timeout", "1",
                cmd=["sh", "-c", f"echo $$ > {mark}; exec sleep 60", "--client--", "true"])
    check("prog: a server that never listens: --ready-timeout, and it is stopped",
          p.returncode == 1 and "within 1 s (--ready-timeout)" in p.stderr and p.seconds < 15
          and gone(read_pid(mark)), p.stderr)
    p, d = prog(tmp, "--ready", "unix:" + fake, "--client-timeout", "1",
                cmd=[*fake_server(), "--client--", "sleep", "60"])
    check("prog: a client that does not end: --client-timeout",
          p.returncode == 1 and d.get("exit_status") == 124 and "--client-timeout" in p.stderr and p.seconds < 15, p.stderr)
    p, d = prog(tmp, "--ready", "unix:" + fake, cmd=[*fake_server("1"), "--client--", "sleep", "60"])
    check("prog: a server that exits while the client runs fails the run at once",
          p.returncode == 1 and "while the client ran" in p.stderr and p.seconds < 15, f"{p.seconds:.1f} s {p.stderr}")

    for args, cmd, why in [
            ([], ["true", "--client--", "true"], "needs --ready"),
            (["--ready", "unix:" + fake], ["true"], "is for server mode"),
            (["--ready", "unix:" + fake], ["--client--", "true"], "no server command"),
            (["--ready", "unix:" + fake], ["true", "--client--"], "no client command"),
            (["--ready", "unix:" + fake], ["true", "--client--", "a", "--client--", "b"], "only"),
            (["--ready", "foo:bar"], ["true", "--client--", "true"], "unix:PATH, tcp:PORT"),
            (["--ready", "tcp:99999"], ["true", "--client--", "true"], "port from 1 to 65535"),
            (["--ready", "unix:"], ["true", "--client--", "true"], "needs a path")]:
        p, d = prog(tmp, *args, cmd=cmd)
        check(f"prog: refused: {' '.join(args + cmd)}", p.returncode != 0 and why in p.stderr and not d, p.stderr)

    # Killed (a row's timeout), it takes the server and the client with it.
    cmark = os.path.join(tmp, "client.pid")
    r = subprocess.Popen([PROG, "--program", "t", "--out", os.path.join(tmp, "k.json"), "--ready", "unix:" + fake,
                          "--", *fake_server(), "--client--", "sh", "-c", f"echo $$ > {cmark}; exec sleep 60"])
    spid, cpid = read_pid(mark), read_pid(cmark)
    r.send_signal(signal.SIGTERM)
    r.wait(timeout=30)
    check("prog: killed, it kills the server and the client", spid and cpid and gone(spid) and gone(cpid),
          f"{spid} {cpid}")

done()
