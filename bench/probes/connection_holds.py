"""Holds of the kinds the hostile probe of 2026-11-27 used, against the real binaries: 900 HTTP/2-preface-only
connections and 900 silent TLS connections against a coordinator (descriptor limit 1024), 950 and 4,200
slow-header connections against the explorer; prints how long a normal call takes meanwhile.
Usage: python3 bench/probes/connection_holds.py target/debug/pentagrid"""
import os, resource, socket, ssl, subprocess, sys, tempfile, threading, time

BIN = sys.argv[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
d = tempfile.mkdtemp()
tok = os.path.join(d, "token"); open(tok, "w").write("probe-token\n")
def ossl(*a): subprocess.run(["openssl", *a], check=True, capture_output=True)
ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/ca.key", "-out", d + "/ca.pem", "-days", "1", "-subj", "/CN=probe-ca")
ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", d + "/key.pem", "-out", d + "/srv.csr", "-subj", "/CN=localhost")
open(d + "/ext", "w").write("subjectAltName=DNS:localhost\n")
ossl("x509", "-req", "-in", d + "/srv.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key", "-CAcreateserial", "-out", d + "/cert.pem", "-days", "1", "-extfile", d + "/ext")

def start(args, marker, nofile):
    p = subprocess.Popen(["sh", "-c", f'ulimit -n {nofile} && exec "$0" "$@"', BIN] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        if marker in line:
            addr = line.split(marker)[1].split()[0].strip().rstrip("/")
            threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
            return p, addr.replace("http://", "")
    raise SystemExit("no address")

def status(url, extra=()):
    t = time.time()
    r = subprocess.run([BIN, "status", "--coordinator", url, "--token-file", tok, *extra], capture_output=True, text=True)
    if r.returncode: print(r.stderr[-400:])
    return time.time() - t, r.returncode

def coordinator(tls, db):
    args = ["coordinator", "--listen", "127.0.0.1:0", "--db", os.path.join(d, db), "--token-file", tok]
    if tls:
        args += ["--tls-cert", d + "/cert.pem", "--tls-key", d + "/key.pem"]
    return start(args, "coordinator listening on ", 1024)

def hold(addr, n, first=b"", tls=False):
    host, port = addr.rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=d + "/ca.pem")
    held = []
    for _ in range(n):
        try:
            s = socket.create_connection((host, int(port)), timeout=5)
            if tls:
                s = ctx.wrap_socket(s, server_hostname="localhost")
            if first:
                s.sendall(first)
            held.append(s)
        except OSError:
            pass
    return held

# (a) 900 preface-only holders, default caps, descriptor limit 1024.
p, addr = coordinator(False, "db1")
held = hold(addr, 900, PREFACE)
time.sleep(0.5)
print("plain: %d preface-only holders; status %.3f s (rc %s)" % ((len(held),) + status("http://" + addr)), flush=True)
print("plain: again %.3f s (rc %s)" % status("http://" + addr), flush=True)
for s in held: s.close()
p.kill(); p.wait()

# (b) 900 TLS handshakes then silence.
p, addr = coordinator(True, "db2")
t = time.time()
held = hold(addr, 900, tls=True)
print("tls: %d silent holders after handshakes (%.1f s to open)" % (len(held), time.time() - t), flush=True)
port = addr.rsplit(":", 1)[1]
print("tls: status %.3f s (rc %s)" % status("https://localhost:" + port, ["--tls-ca", d + "/ca.pem"]), flush=True)
for s in held: s.close()
p.kill(); p.wait()

# (c) explorer: slow-header holders, a header line every 10 s.
c, caddr = coordinator(False, "db3")
for cap, n in [(900, 950), (4096, 4200)]:
    args = ["serve", "--listen", "127.0.0.1:0", "--coordinator", "http://" + caddr, "--token-file", tok]
    if cap != 4096:
        args += ["--max-connections", str(cap)]
    e, eaddr = start(args, "explorer on ", 16384)
    held = hold(eaddr, n, b"GET /api/v1/cluster HTTP/1.1\r\nHost: x\r\n")
    stop = threading.Event()
    def drip():
        while not stop.wait(10):
            for s in held:
                try: s.sendall(b"X-Slow: 1\r\n")
                except OSError: pass
    threading.Thread(target=drip, daemon=True).start()
    time.sleep(0.5)
    for _ in range(2):
        t = time.time()
        r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", f"http://{eaddr}/api/v1/cluster"], capture_output=True, text=True)
        print("explorer cap %d: %d slow-header holders; GET %.3f s (HTTP %s)" % (cap, len(held), time.time() - t, r.stdout), flush=True)
        time.sleep(11)
    stop.set()
    for s in held: s.close()
    e.kill(); e.wait()
c.kill(); c.wait()
