package target

import (
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestFreeAddrPortStaysBindable: a reserved port is bindable by its holder
// whatever other draws do meanwhile. Four drawers share three ports, each
// binding what it got as a target does, while processes are started
// (scenarios start replays and servers all along). A draw that probed a
// port another holds would make that holder's bind fail, and so would a
// probe that listens: a child forked meanwhile keeps the probe's listener
// open until its exec.
func TestFreeAddrPortStaysBindable(t *testing.T) {
	stop := make(chan struct{})
	var spawners sync.WaitGroup
	for range 2 {
		spawners.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command("true").Run()
			}
		})
	}
	defer spawners.Wait()
	defer close(stop)
	top := ephemeralStart()
	if top < lowestPort+1000 {
		t.Skipf("no port range below the ephemeral one (%d)", top)
	}
	// Three ports below the ephemeral range, where targets' ports are.
	low := lowestPort + rand.IntN(top-lowestPort-3)
	dir := t.TempDir()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bound, failed int
	for range 4 {
		wg.Go(func() {
			for range 300 {
				addr, release, err := freeAddrIn(dir, low, low+3)
				if err != nil {
					if !strings.Contains(err.Error(), "no free loopback port") {
						t.Error(err)
					}
					continue
				}
				l, err := net.Listen("tcp", addr)
				mu.Lock()
				if err != nil {
					failed++
					if failed == 1 {
						t.Errorf("the holder of %s cannot bind it: %v", addr, err)
					}
				} else {
					bound++
				}
				mu.Unlock()
				if l != nil {
					l.Close()
				}
				release()
			}
		})
	}
	wg.Wait()
	if bound < 100 {
		t.Fatalf("only %d ports bound (of 1200 draws): the ports were taken by something else", bound)
	}
	t.Logf("%d bound, %d failed", bound, failed)
}

// TestFreeAddrReservationIgnoresTMPDIR: a port reserved by a run with one
// TMPDIR is reserved for a run with another (mutate gives each check its
// own TMPDIR; they share the machine's ports).
func TestFreeAddrReservationIgnoresTMPDIR(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	addr, release, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, port, _ := net.SplitHostPort(addr)
	t.Setenv("TMPDIR", t.TempDir())
	if err := os.MkdirAll(portLocks(), 0o777); err != nil {
		t.Fatal(err)
	}
	if lock, err := reserve(filepath.Join(portLocks(), port)); err == nil {
		lock.Close()
		t.Fatalf("port %s, reserved under another TMPDIR, was reserved again", port)
	}
}
