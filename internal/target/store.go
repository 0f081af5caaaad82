package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Store seeds and reads a target's configuration store, so each scenario
// starts from a known state and config changes are checked in the real store,
// not in the API's echo. A store holds bytes, JSON or not (a user's disk may
// hold a partial write); Dump gives a value that is not JSON as its text,
// trimmed, as a JSON string (storeValue).
type Store interface {
	Seed(ctx context.Context, env Env, config []byte) error
	Dump(ctx context.Context, env Env) (json.RawMessage, error)
}

// storeValue is a stored value as the observations hold it: JSON as it is,
// anything else as its text, white space trimmed at both ends, as a JSON
// string.
func storeValue(v []byte) json.RawMessage {
	if json.Valid(v) {
		return append(json.RawMessage(nil), bytes.TrimSpace(v)...) // a copy: v may be the store's memory
	}
	s, _ := json.Marshal(string(bytes.TrimSpace(v)))
	return s
}

// BoltStore is the default store contract, the reference's: the bbolt
// file {state}/state.db, bucket "state", key "mcp".
type BoltStore struct{}

const (
	boltFile   = "state.db"
	boltBucket = "state"
	boltKey    = "mcp"
)

func (BoltStore) open(env Env) (*bolt.DB, error) {
	path := filepath.Join(env.State, boltFile)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return db, nil
}

func (s BoltStore) Seed(_ context.Context, env Env, config []byte) error {
	db, err := s.open(env)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(boltBucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(boltKey), config)
	})
}

func (s BoltStore) Dump(_ context.Context, env Env) (json.RawMessage, error) {
	db, err := s.open(env)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out json.RawMessage
	err = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(boltBucket)); b != nil {
			if v := b.Get([]byte(boltKey)); v != nil {
				out = storeValue(v)
			}
		}
		return nil
	})
	if out == nil {
		out = json.RawMessage("null")
	}
	return out, err
}

// cmdStore runs the commands of a target file: Seed gets the configuration
// JSON on stdin, Dump prints it on stdout. Both get {state} and
// {workspace} substituted.
type cmdStore struct {
	SeedCmd, DumpCmd []string
}

func (s cmdStore) run(ctx context.Context, env Env, argv []string, stdin []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = env.Expand(a)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = os.Environ()
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", joinCommand(args), err, stderr.String())
	}
	return out, nil
}

func (s cmdStore) Seed(ctx context.Context, env Env, config []byte) error {
	_, err := s.run(ctx, env, s.SeedCmd, config)
	return err
}

func (s cmdStore) Dump(ctx context.Context, env Env) (json.RawMessage, error) {
	out, err := s.run(ctx, env, s.DumpCmd, nil)
	if err != nil {
		return nil, err
	}
	return storeValue(out), nil
}
