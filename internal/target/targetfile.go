package target

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/cmdline"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/strictjson"
	"gopkg.in/yaml.v3"
)

// TargetFile describes a target beyond its spec: environment, store
// commands, accepted deviations. JSON or YAML (by extension).
type TargetFile struct {
	Target string `json:"target" yaml:"target"`
	// Era is the protocol era the target speaks (2025-11-25, the default,
	// or 2026-07-28); check's --era replaces it.
	Era   string            `json:"era" yaml:"era"`
	Env   map[string]string `json:"env" yaml:"env"`
	Store *struct {
		Seed string `json:"seed" yaml:"seed"`
		Dump string `json:"dump" yaml:"dump"`
	} `json:"store" yaml:"store"`
	Deviations []compare.Deviation `json:"deviations" yaml:"deviations"`
	// Mutants, for `mcpparity mutate-target`: the target's own
	// mutant catalogue, applied one at a time to a copy of the target
	// file's folder, which is then built and checked; or compiled into the
	// target and selected by its switch variable.
	Mutants *TargetMutants `json:"mutants" yaml:"mutants"`
	// Dir is the target file's folder, absolute: {dir} in the target and
	// store commands and env values.
	Dir string `json:"-" yaml:"-"`
}

// TargetMutants says how to mutate a target of its own.
type TargetMutants struct {
	// Catalogue is the folder of the mutant files (the format of
	// mutations/rules, file paths relative to the target file's folder).
	Catalogue string `json:"catalogue" yaml:"catalogue"`
	// Build runs in the copy once a mutant is applied ({dir} is the copy).
	Build string `json:"build" yaml:"build"`
	// Link are entries of the folder linked into the copy instead of
	// copied (dependencies: node_modules).
	Link []string `json:"link" yaml:"link"`
	// Switch, instead of Build, names the environment variable that
	// selects a mutant compiled into the target (unset or empty: none);
	// Catalogue is then one JSON file listing them. Nothing is copied or
	// built: the target is judged as it is, once per mutant.
	Switch string `json:"switch" yaml:"switch"`
}

// dirPlaceholder in a target file stands for the file's own folder.
const dirPlaceholder = "{dir}"

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
		err = strictjson.Decode(path, "target file", data, &tf)
	}
	if err != nil {
		return nil, fmt.Errorf("target file %s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	tf.setDir(dir)
	if m := tf.Mutants; m != nil && (m.Catalogue == "" || (m.Build == "") == (m.Switch == "")) {
		return nil, fmt.Errorf("target file %s: mutants needs catalogue and either build or switch", path)
	}
	if err := tf.checkEra(); err != nil {
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
		if err := d.Compile(); err != nil {
			return nil, fmt.Errorf("target file %s: deviations[%d]: %w", path, i, err)
		}
		if _, err := impl.ParseEra(d.Era); err != nil {
			return nil, fmt.Errorf("target file %s: deviations[%d]: era: %w", path, i, err)
		}
	}
	return &tf, nil
}

// checkEra checks the era: a known one, set by era, not by env.
func (tf *TargetFile) checkEra() error {
	if _, ok := tf.Env[impl.EraVar]; ok {
		return fmt.Errorf("env sets %s: the era is set by era (or check's --era)", impl.EraVar)
	}
	if tf.Era == "" {
		return nil
	}
	_, err := impl.ParseEra(tf.Era)
	return err
}

// setDir sets Dir and expands {dir} in the commands and env values (a
// folder with spaces or quotes is quoted for cmdline.Split).
func (tf *TargetFile) setDir(dir string) {
	tf.Dir = dir
	word := dir
	if strings.ContainsAny(dir, " \t\n'\"\\") {
		word = "'" + strings.ReplaceAll(dir, "'", `'"'"'`) + "'"
	}
	expand := func(s string) string { return strings.ReplaceAll(s, dirPlaceholder, word) }
	tf.Target = expand(tf.Target)
	if tf.Store != nil {
		tf.Store.Seed, tf.Store.Dump = expand(tf.Store.Seed), expand(tf.Store.Dump)
	}
	if tf.Mutants != nil {
		tf.Mutants.Build = expand(tf.Mutants.Build)
	}
	for k, v := range tf.Env {
		tf.Env[k] = strings.ReplaceAll(v, dirPlaceholder, dir)
	}
}

// StoreFor returns the store contract of a target file (boltStore when
// it declares none).
func (tf *TargetFile) StoreFor() (Store, error) {
	if tf == nil || tf.Store == nil {
		return BoltStore{}, nil
	}
	seed, err := cmdline.Split(tf.Store.Seed)
	if err != nil {
		return nil, fmt.Errorf("store seed: %w", err)
	}
	dump, err := cmdline.Split(tf.Store.Dump)
	if err != nil {
		return nil, fmt.Errorf("store dump: %w", err)
	}
	return cmdStore{SeedCmd: seed, DumpCmd: dump}, nil
}
