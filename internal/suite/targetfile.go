package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// TargetFile describes a target beyond its spec: environment, store
// commands, accepted deviations. JSON or YAML (by extension).
type TargetFile struct {
	Target string            `json:"target" yaml:"target"`
	Env    map[string]string `json:"env" yaml:"env"`
	Store  *struct {
		Seed string `json:"seed" yaml:"seed"`
		Dump string `json:"dump" yaml:"dump"`
	} `json:"store" yaml:"store"`
	Deviations []Deviation `json:"deviations" yaml:"deviations"`
}

// LoadTargetFile reads and checks a target file.
func LoadTargetFile(path string) (*TargetFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tf TargetFile
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		err = dec.Decode(&tf)
	default:
		var p *TargetFile
		p, err = decodeStrict[TargetFile](path, data)
		if p != nil {
			tf = *p
		}
	}
	if err != nil {
		return nil, fmt.Errorf("target file %s: %w", path, err)
	}
	if tf.Store != nil && (tf.Store.Seed == "" || tf.Store.Dump == "") {
		return nil, fmt.Errorf("target file %s: store needs both seed and dump", path)
	}
	for i := range tf.Deviations {
		d := &tf.Deviations[i]
		if d.Scenario == "" || d.Path == "" || d.Reason == "" {
			return nil, fmt.Errorf("target file %s: deviations[%d] needs scenario, path and reason", path, i)
		}
		if err := d.compile(); err != nil {
			return nil, fmt.Errorf("target file %s: deviations[%d]: %w", path, i, err)
		}
	}
	return &tf, nil
}

// StoreFor returns the store contract of a target file (BoltStore when
// it declares none).
func (tf *TargetFile) StoreFor() (Store, error) {
	if tf == nil || tf.Store == nil {
		return BoltStore{}, nil
	}
	seed, err := SplitCommand(tf.Store.Seed)
	if err != nil {
		return nil, fmt.Errorf("store seed: %w", err)
	}
	dump, err := SplitCommand(tf.Store.Dump)
	if err != nil {
		return nil, fmt.Errorf("store dump: %w", err)
	}
	return CmdStore{SeedCmd: seed, DumpCmd: dump}, nil
}
