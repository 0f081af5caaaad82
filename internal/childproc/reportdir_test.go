package childproc

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// A process's pid file is held while it is announced, listed once there,
// and free once closed; its report is listed once written.
func TestAnnounceHeldListed(t *testing.T) {
	d := Dir(t.TempDir())
	f, err := d.Announce(42)
	if err != nil {
		t.Fatal(err)
	}
	if held, err := Held(d.PIDFile(42)); !held || err != nil {
		t.Fatalf("announced pid file held %v (%v), want held", held, err)
	}
	if pids, _ := d.PIDs(); !slices.Equal(pids, []int{42}) {
		t.Fatalf("pids %v, want [42] (the temporary name is not listed)", pids)
	}
	f.Close()
	if held, _ := Held(d.PIDFile(42)); held {
		t.Fatal("a closed pid file is still held")
	}
	if held, err := Held(d.PIDFile(7)); held || err != nil {
		t.Fatalf("a missing file: held %v, %v", held, err)
	}
	if err := WriteAtomic(d.ReportFile(42), []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if reps, _ := d.Reports(); !slices.Equal(reps, []int{42}) {
		t.Fatalf("reports %v, want [42] (no temporary file left)", reps)
	}
	entries, _ := os.ReadDir(string(d))
	if len(entries) != 2 {
		t.Fatalf("files %v, want the pid file and the report", entries)
	}
}

// WhileHeld ends once the lock is released.
func TestWhileHeld(t *testing.T) {
	lock := RunLock(t.TempDir())
	f, err := Hold(lock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := WhileHeld(context.Background(), lock)
	defer cancel()
	select {
	case <-ctx.Done():
		t.Fatal("ended while the lock was held")
	case <-time.After(3 * pollLock):
	}
	f.Close()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after the lock was released")
	}
}
