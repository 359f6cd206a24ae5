#!/bin/sh
# SPDX-License-Identifier: ISC
# bench/beacon_lag.sh — how late after its release does an epoch's identity
# appear at a follower?  A beacon (`beacon run`, sha3-256, one group) with a
# 20 s period is served over HTTP (python3's http.server) and one
# `beacon solve URL --follow` follows it for N epochs; for each epoch the
# identity file's appearance is timed against the epoch's release time, and
# its solve time (the follower's own "solved in X s" line) subtracted:
# what is left is the follower's reaction lag.  Real time, no test
# switches: the shipping binary (or an older one, for the "before" row).
#
#   sh bench/beacon_lag.sh [N] [EVERY_S] [STEPS]    defaults 8 epochs, 20 s, 3000000 steps
#
# One JSON line per epoch: {"bench":"beacon_lag","epoch":E,"lag_s":..,
# "solve_s":..,"lag_minus_solve_s":..,"late_by_period":bool}, then a
# summary line (median, max, how many late by a period).  Goal at load
# below 1: median <= 2 s, max <= 5 s, none late by a period.  Timing varies
# with the machine's load (tests never assert on it).
# Environment: RXLOCK (the binary, default ./build/rxlock), LAG_DIR (work
# directory, default a temporary one, removed), LAG_WAIT_LISTED=1 (start
# the follower once the feed lists an epoch, not as soon as it exists).
set -eu
N=${1:-8}
EVERY=${2:-20}
STEPS=${3:-3000000}
RXLOCK=${RXLOCK:-./build/rxlock}
case $RXLOCK in /*) ;; *) RXLOCK=$PWD/$RXLOCK ;; esac
command -v python3 >/dev/null || { echo "beacon_lag: needs python3" >&2; exit 1; }
exec python3 - "$RXLOCK" "$N" "$EVERY" "$STEPS" "${LAG_DIR:-}" <<'PY'
import json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time
rx, n, every, steps, keep = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
d = keep or tempfile.mkdtemp(prefix='rxlock-lag-')
os.makedirs(d, exist_ok=True)
os.chdir(d)
procs = []
def stop():
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try: p.wait(10)
        except Exception: p.kill()
try:
    start = int(time.time()) + 30
    pin = subprocess.run([rx, 'beacon', 'init', 'B', '--work', 'sha3-256', '--groups', '1', '--steps', str(steps),
                          '--every', '%ds' % every, '--ahead', '3', '--start', '@%d' % start, '--workers', '1'],
                         check=True, capture_output=True, text=True).stdout.strip()
    run = subprocess.Popen([rx, 'beacon', 'run', 'B'], stderr=open('run.log', 'w'))
    procs.append(run)
    s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
    srv = subprocess.Popen([sys.executable, '-m', 'http.server', '--bind', '127.0.0.1', str(port)],
                           cwd='B/public', stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(srv)
    url = 'http://127.0.0.1:%d' % port
    while not os.path.exists('B/public/feed.json'): time.sleep(0.1)
    # LAG_WAIT_LISTED=1: start the follower once the feed lists an epoch
    # (default: as soon as there is a feed, as a solver started early)
    while os.environ.get('LAG_WAIT_LISTED') == '1' and '"index"' not in open('B/public/feed.json').read():
        time.sleep(0.1)
    time.sleep(1)
    fol = subprocess.Popen([rx, 'beacon', 'solve', url, '--ids', 'IDS', '--follow', '--signer-pin', pin],
                           stderr=open('follow.log', 'w'))
    procs.append(fol)
    seen = {}
    deadline = start + (n + 3) * every + 120
    while len(seen) < n and time.time() < deadline:
        for e in range(n):
            if e not in seen and os.path.exists('IDS/%d.txt' % e):
                seen[e] = time.time()
        time.sleep(0.02)
    solve = {}
    for line in open('follow.log'):
        m = re.match(r'rxlock: epoch (\d+) solved in ([0-9.]+) s', line)
        if m: solve[int(m.group(1))] = float(m.group(2))
    rows = []
    for e in range(n):
        rel = start + e * every
        if e not in seen:
            print(json.dumps({'bench': 'beacon_lag', 'epoch': e, 'missing': True}))
            continue
        lag = seen[e] - rel
        sv = solve.get(e, 0.0)
        r = {'bench': 'beacon_lag', 'epoch': e, 'lag_s': round(lag, 2), 'solve_s': sv,
             'lag_minus_solve_s': round(lag - sv, 2), 'late_by_period': lag - sv >= every}
        rows.append(r)
        print(json.dumps(r))
    x = [r['lag_minus_solve_s'] for r in rows]
    print(json.dumps({'bench': 'beacon_lag', 'summary': True, 'binary': rx, 'epochs': n, 'every_s': every,
                      'steps': steps, 'median_s': round(statistics.median(x), 2) if x else None,
                      'max_s': max(x) if x else None, 'late_by_period': sum(r['late_by_period'] for r in rows),
                      'missing': n - len(rows), 'load1': os.getloadavg()[0]}))
finally:
    stop()
    if not keep:
        os.chdir('/')
        shutil.rmtree(d, ignore_errors=True)
PY
