# SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
# SPDX-License-Identifier: Apache-2.0
"""What the measuring tools share: a 10 Hz receiver on a pseudo-terminal and a gpslocd of their own.

Not a tool itself; `tools/latency` and `tools/daemon-load` import it.
"""
import grp, json, os, pty, select, shutil, socket, statistics, subprocess, sys, tempfile, time, tty

def checksum(body):
    value = 0
    for byte in body.encode():
        value ^= byte
    return "%02X" % value

def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))

def ddmm(value, positive, negative, width):
    hemisphere = positive if value >= 0 else negative
    value = abs(value)
    degrees = int(value)
    minutes = (value - degrees) * 60
    return ("%0" + str(width) + "d%09.6f") % (degrees, minutes), hemisphere

# 2026-03-14T08:00:00Z, the first epoch's time.
FIRST_EPOCH = 1773475200.0

def epoch(index):
    """The bytes of epoch `index` (RMC then GGA, a vehicle at 24 knots, 10 epochs a second), its
    ISO 8601 time as gpsloc prints it, and its time in seconds since 1970 as the daemon sends it."""
    seconds = index / 10.0
    hh, rest = divmod(8 * 3600 + seconds, 3600)
    mm, ss = divmod(rest, 60)
    clock = "%02d%02d%05.2f" % (hh, mm, ss)
    latitude = 52.3731 + index * 1e-6
    longitude = 4.8922 + index * 1.5e-6
    lat, ns = ddmm(latitude, "N", "S", 2)
    lon, ew = ddmm(longitude, "E", "W", 3)
    rmc = sentence("GPRMC,%s,A,%s,%s,%s,%s,24.3,45.0,140326,,,A" % (clock, lat, ns, lon, ew))
    gga = sentence("GPGGA,%s,%s,%s,%s,%s,1,12,0.8,12.0,M,46.9,M,," % (clock, lat, ns, lon, ew))
    stamp = "2026-03-14T%02d:%02d:%06.3fZ" % (hh, mm, ss)
    return (rmc + gga).encode(), stamp, round(FIRST_EPOCH + seconds, 3)

def run_in_real_time():
    """Gives the calling thread a real-time priority (SCHED_FIFO, the lowest), for a writer that
    takes the moment its write returned: an ordinary thread, with both processors busy with the
    program measured, was preempted right after writing and took the moment only once a processor
    was free again, after part of the work it was to time. Returns whether it could (root can)."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        return True
    except (AttributeError, OSError):
        return False

def latency_summary(values):
    """Median, 99th percentile and maximum of latencies in ms, as the tools print them."""
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(round(0.99 * len(values))) - 1)]
    return "median %.2f ms   p99 %.2f ms   max %.2f ms" % (statistics.median(values), p99, values[-1])

def cpu_seconds(pid):
    """Time process `pid` has run on a processor, every thread of it included, those that ended too
    (a daemon's runtime starts and ends worker threads as it likes): the kernel's CPU-time clock of
    the process, in nanoseconds (clock_getcpuclockid(3); the clock's number is made as glibc
    makes it). The sum of the threads' /proc/<pid>/task/<tid>/schedstat would miss those that
    ended, and /proc/<pid>/stat counts in clock ticks (10 ms): a daemon that takes 0.6 % of a core
    over 20 s is 12 ticks, and a tick more or less is 8 % of the figure."""
    return time.clock_gettime_ns(((~pid) << 3) | 2) / 1e9

def free_port():
    """A TCP port of the loopback nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]

class Receiver:
    """A receiver's serial port: the slave side of a raw pty is the device, `write` feeds it."""
    def __init__(self):
        self.master, slave = pty.openpty()
        tty.setraw(slave)
        self.device = os.ttyname(slave)
        os.close(slave)

    def write(self, data):
        os.write(self.master, data)

    def drain(self):
        """Reads what the device's reader wrote back (nothing, normally), so the pty never fills."""
        while select.select([self.master], [], [], 0)[0]:
            try:
                if not os.read(self.master, 65536):
                    return
            except OSError:
                return

    def close(self):
        os.close(self.master)

def build(root, product):
    subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=root, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(root, ".build", "release", product)

def raise_descriptor_limit(wanted):
    """Raises this process's limit of open files (its children inherit it) to `wanted`, or says why not."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return
    if hard != resource.RLIM_INFINITY and hard < wanted:
        sys.exit("the limit of open files is %d (hard); raise it (ulimit -Hn %d, as root) and run again"
                 % (hard, wanted))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))

class Daemon:
    """A gpslocd of the tool's own on `device`, its socket, state and registrations in a temporary
    directory. The tool's user is made an administrator through its primary group, so that it
    can grant its own connections."""
    def __init__(self, gpslocd, device, extra=(), wait=True, environment=None, wrap=()):
        self.work = tempfile.mkdtemp(prefix="gpslocd-bench-")
        self.socket = os.path.join(self.work, "gpslocd.sock")
        config = os.path.join(self.work, "gpslocd.conf")
        with open(config, "w") as file:
            file.write("{}\n")
        os.mkdir(os.path.join(self.work, "apps.d"))
        group = grp.getgrgid(os.getgid()).gr_name
        self.command = list(wrap) + [gpslocd, "--config", config, "--socket", self.socket,
                        "--state-dir", os.path.join(self.work, "state"),
                        "--apps-dir", os.path.join(self.work, "apps.d"), "--admin-group", group,
                        "--source", "serial:%s?baud=115200" % device] + list(extra)
        self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE,
                                        env=dict(os.environ, **environment) if environment else None)
        if wait:
            self.wait_for_socket()

    def wait_for_socket(self):
        """Returns once the daemon's socket exists; exits saying why when it does not come."""
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                sys.exit("gpslocd did not start: %s" % self.process.stderr.read().decode(errors="replace"))
            time.sleep(0.05)

    @property
    def pid(self):
        return self.process.pid

    def cpu_seconds(self):
        """User and system time the daemon has used."""
        return cpu_seconds(self.pid)

    def memory(self, key="VmRSS"):
        """Bytes of the daemon's resident memory (or another Vm… line of /proc/<pid>/status)."""
        with open("/proc/%d/status" % self.pid) as file:
            for line in file:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.work, ignore_errors=True)

class Client:
    """One connection to the daemon, read without blocking; lines come out of `lines()`."""
    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.pending = b""

    def send(self, request):
        self.socket.sendall((json.dumps(request, separators=(",", ":")) + "\n").encode())

    def fileno(self):
        return self.socket.fileno()

    def lines(self):
        """The whole lines that have arrived; None when the daemon closed the connection."""
        chunk = self.socket.recv(1 << 20)
        if not chunk:
            return None
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        return lines

    def read_reply(self, timeout=10):
        """The next reply to a request, past the events that come before it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                message = json.loads(line)
                if "reply" in message:
                    return message
                continue
            if select.select([self.socket], [], [], max(0, deadline - time.monotonic()))[0]:
                chunk = self.socket.recv(65536)
                if not chunk:
                    sys.exit("gpslocd closed the connection")
                self.pending += chunk
        sys.exit("gpslocd did not answer within %d s" % timeout)

    def close(self):
        self.socket.close()

class GPSDClient:
    """A client of gpsd's protocol on TCP, watching JSON; an update is the epoch's TPV."""
    def __init__(self, port):
        deadline = time.monotonic() + 20
        while True:
            try:
                self.socket = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("nothing serves gpsd's protocol on port %d" % port)
                time.sleep(0.1)
        self.socket.sendall(b'?WATCH={"enable":true,"json":true};\n')
        self.pending = b""

    def fileno(self):
        return self.socket.fileno()

    def lines(self):
        """The whole lines that have arrived."""
        chunk = self.socket.recv(1 << 20)
        if not chunk:
            sys.exit("the server of gpsd's protocol closed the connection")
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        return lines

    def read(self, stamp, seconds=None):
        """Whether the TPV of the epoch at `stamp` came."""
        wanted = ('"time":"%s"' % stamp).encode()
        return any(b'"class":"TPV"' in line and wanted in line for line in self.lines())

def granted_client(path, timeout=10, subscribing=True):
    """A connection whose program (this interpreter, as the daemon knows it) an administrator — this
    user, through its group — granted Always, with a session and a subscription open unless not
    `subscribing`; each reply awaited `timeout` seconds at most."""
    client = Client(path)
    client.send({"op": "hello", "version": 1})
    hello = client.read_reply(timeout)
    if hello.get("reply") != "hello":
        sys.exit("gpslocd refused the hello: %s" % hello)
    app = hello["identity"]["app"]
    client.send({"op": "auth.grant", "id": 1, "uid": os.getuid(), "app": app, "level": "always"})
    answer = client.read_reply(timeout)
    if answer.get("reply") != "ok":
        sys.exit("gpslocd refused the grant (%s); is %s an administrators' group?" % (answer, grp.getgrgid(os.getgid()).gr_name))
    if subscribing:
        subscribe(client)
    return client

def subscribe(client):
    client.send({"op": "session.open", "session": 1, "authorization": "always"})
    client.send({"op": "updates.subscribe", "subscription": 1})
