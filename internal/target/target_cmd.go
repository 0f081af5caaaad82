package target

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcpparity/mcpparity/internal/childproc"
)

// cmdTarget runs a command line with {addr}, {state}, {workspace}
// substituted. The harness picks a free loopback port for {addr}.
type cmdTarget struct {
	Argv []string
}

func (t *cmdTarget) Name() string { return "cmd:" + joinCommand(t.Argv) }

func (t *cmdTarget) Start(ctx context.Context, env Env) (Instance, error) {
	argv := make([]string, len(t.Argv))
	for i, a := range t.Argv {
		argv[i] = env.Expand(a)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	vars, err := env.ProcessVars()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), vars...)
	logs := &Capped{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = logs, logs
	childproc.Own(cmd)
	childproc.DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("target did not start: %w", err)
	}
	inst := &cmdInstance{cmd: cmd, url: "http://" + env.Addr, logs: logs, exited: make(chan struct{})}
	go func() {
		inst.waitErr = cmd.Wait()
		close(inst.exited)
	}()
	if err := WaitReady(ctx, inst.url, env.Ready, inst.exited, false); err != nil {
		_ = inst.Stop(context.Background())
		return nil, fmt.Errorf("target did not start: %w\n%s", err, logs.String())
	}
	return inst, nil
}

type cmdInstance struct {
	cmd     *exec.Cmd
	url     string
	logs    *Capped
	exited  chan struct{}
	waitErr error
}

func (c *cmdInstance) URL() string  { return c.url }
func (c *cmdInstance) Logs() string { return c.logs.String() }

// Stop sends SIGTERM to the target's process group, then SIGKILL after a
// grace period.
func (c *cmdInstance) Stop(ctx context.Context) error {
	childproc.Signal(c.cmd, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, stopGrace)
	defer cancel()
	select {
	case <-c.exited:
		// What is left of its group (servers it started without a group
		// of their own) got the SIGTERM too: they have the rest of the
		// grace to end (a stdio replay writes its report then).
		waitGroupGone(ctx, c.cmd.Process.Pid)
	case <-ctx.Done():
	}
	childproc.Signal(c.cmd, syscall.SIGKILL)
	<-c.exited
	return nil
}

// stopGrace is how long a stopped target and its process group have to
// end on their own before SIGKILL.
const stopGrace = 5 * time.Second

// waitGroupGone waits until no live process is left in the process group
// pgid, or ctx ends.
func waitGroupGone(ctx context.Context, pgid int) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for childproc.Alive(pgid) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// Target ports are drawn below the system's ephemeral range, where no
// listen(:0) or outgoing connection of another process lands between the
// moment FreeAddr finds a port free and the moment the target binds it;
// and each is reserved by a lock file that other runs of the harness
// respect.
const (
	lowestPort = 20000
	portRange  = "/proc/sys/net/ipv4/ip_local_port_range"
)

// FreeAddr returns a loopback address with a port free right now, and
// reserves it for this run until release is called: another FreeAddr, in
// this process or another, does not hand it out meanwhile.
func FreeAddr() (addr string, release func(), err error) {
	return freeAddrIn(portLocks(), lowestPort, ephemeralStart())
}

// portLocks is the folder of the ports' lock files. Ports belong to the
// machine, not to a run: it is /tmp's whatever TMPDIR says (mutate gives
// each check a TMPDIR of its own), os.TempDir's only without a /tmp.
func portLocks() string {
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		return "/tmp/mcpparity-ports"
	}
	return filepath.Join(os.TempDir(), "mcpparity-ports")
}

// freeAddrIn draws ports in [low, top), reserved by lock files in dir.
func freeAddrIn(dir string, low, top int) (addr string, release func(), err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", nil, err
	}
	for range 200 {
		if top <= low {
			// No range to draw from: the system picks, unreserved.
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return "", nil, err
			}
			addr := ln.Addr().String()
			ln.Close()
			return addr, func() {}, nil
		}
		// The lock first, then the probe: a probe never holds a port that
		// another run reserved, and may be binding at that moment.
		port := low + mrand.IntN(top-low)
		path := filepath.Join(dir, strconv.Itoa(port))
		lock, err := reserve(path)
		if err != nil {
			continue // reserved by another run
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if !refused(addr) {
			lock.Close()
			continue // something listens there: draw again
		}
		return addr, func() { os.Remove(path); lock.Close() }, nil
	}
	return "", nil, errors.New("no free loopback port that another run had not reserved")
}

// refused reports whether a connection to addr is refused: nothing listens
// there. The probe is a connection, not a listener: a listener closed by the
// probe would live on in any child process forked meanwhile (until its exec
// closes it), and the target's bind would fail.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// reserve takes the lock of path without waiting; it is held until the
// file is closed (or the process ends). A release removes the file before
// it unlocks, so a lock taken on a file that is no longer at path (opened
// just before the removal) reserves nothing.
func reserve(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	held, err1 := f.Stat()
	now, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		f.Close()
		return nil, errors.New("released meanwhile")
	}
	return f, nil
}

// ephemeralStart is the first port of the system's ephemeral range (0 when
// it cannot be read: then the system picks).
func ephemeralStart() int {
	data, err := os.ReadFile(portRange)
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0
	}
	return n
}

// Capped is a concurrency-safe buffer that keeps the first max bytes.
type Capped struct {
	mu   sync.Mutex
	buf  []byte
	Max  int
	full bool
}

func (c *Capped) Write(p []byte) (int, error) {
	n := len(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.Max - len(c.buf); room > 0 && !c.full {
		if len(p) > room {
			p, c.full = p[:room], true
			// Never keep half a character.
			for i := 0; i < utf8.UTFMax && len(p) > 0; i++ {
				if r, size := utf8.DecodeLastRune(p); r != utf8.RuneError || size > 1 {
					break
				}
				p = p[:len(p)-1]
			}
		}
		c.buf = append(c.buf, p...)
	}
	return n, nil
}

func (c *Capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf)
}

var errExited = errors.New("the target exited before answering")

func joinCommand(argv []string) string {
	s := ""
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}
