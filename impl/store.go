package impl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// C8: the configuration lives in a bbolt file, bucket "state", key "mcp",
// as a JSON object name → config.
const (
	StoreFile   = "state.db"
	StoreBucket = "state"
	StoreKey    = "mcp"
)

// Store is the bbolt-backed configuration store. The file is opened for each
// transaction and closed after it, so that another process (the harness
// seeding or reading the store) can open it between requests.
type Store struct {
	path string
}

// NewStore returns the store of the state folder dir, creating the folder.
func NewStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state folder: %w", err)
	}
	return &Store{path: filepath.Join(dir, StoreFile)}, nil
}

// Path is the bbolt file.
func (s *Store) Path() string { return s.path }

func (s *Store) with(readOnly bool, fn func(*bolt.Tx) error) error {
	db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return fmt.Errorf("open store %s: %w", s.path, err)
	}
	defer db.Close()
	if readOnly {
		return db.View(fn)
	}
	return db.Update(fn)
}

// Load implements C8's reading: every configured server. A store that
// cannot be opened or holds no value reads as no servers; a value that does
// not decode reads as the servers decoded before the first that fails
// (encoding/json into a map: none when the value is not an object).
func (s *Store) Load() map[string]MCPServerConfig {
	out := map[string]MCPServerConfig{}
	raw, err := s.raw()
	if err != nil || len(raw) == 0 {
		return out
	}
	_ = json.Unmarshal(raw, &out) // C8: what decoded is kept, the rest ignored
	if out == nil {
		out = map[string]MCPServerConfig{} // a stored null
	}
	return out
}

// raw reads the stored value as is (nil when there is none).
func (s *Store) raw() ([]byte, error) {
	var raw []byte
	err := s.with(true, func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(StoreBucket)); b != nil {
			raw = append([]byte(nil), b.Get([]byte(StoreKey))...)
		}
		return nil
	})
	return raw, err
}

// Save writes the whole configuration (json.Marshal sorts the names).
func (s *Store) Save(cfg map[string]MCPServerConfig) error {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	return s.with(false, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(StoreBucket))
		if err != nil {
			return err
		}
		return b.Put([]byte(StoreKey), raw)
	})
}

// sortedNames implements C8's iteration order: sorted names.
func sortedNames(cfg map[string]MCPServerConfig) []string {
	names := make([]string, 0, len(cfg))
	for n := range cfg {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
