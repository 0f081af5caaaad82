package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// selectMutants returns the mutants mutate's flags select: the catalogue's
// (checked whole: a stale mutant is an error before anything runs) or the
// operators', then those of --rule, then those --changed concerns.
func (c *call) selectMutants(ctx context.Context, dir string, f *mutateFlags) ([]catalogue.Mutant, error) {
	ms, err := loadMutants(dir, f)
	if err != nil {
		return nil, err
	}
	if *f.rules != "" {
		if ms, err = catalogue.Select(ms, splitIDs(*f.rules)); err != nil {
			return nil, err
		}
	}
	if *f.changed == "" {
		return ms, nil
	}
	return c.changedMutants(ctx, dir, f, ms)
}

func loadMutants(dir string, f *mutateFlags) ([]catalogue.Mutant, error) {
	if *f.operators {
		ms, err := catalogue.OperatorMutants(dir, filepath.ToSlash(filepath.Clean(*f.pkg)))
		if err != nil {
			return nil, err
		}
		return catalogue.Sample(ms, *f.limit, *f.seed), nil
	}
	ms, err := catalogue.LoadCatalogue(os.DirFS(dir), filepath.ToSlash(*f.catalogue))
	if err != nil {
		return nil, err
	}
	return ms, catalogue.Resolve(dir, ms)
}

// changedMutants keeps those of ms whose rule's files or scenarios changed
// since --changed.
func (c *call) changedMutants(ctx context.Context, dir string, f *mutateFlags, ms []catalogue.Mutant) ([]catalogue.Mutant, error) {
	files, err := catalogue.ChangedFiles(ctx, dir, *f.changed)
	if err != nil {
		return nil, fmt.Errorf("--changed: %w", err)
	}
	scenarios, err := catalogue.RuleScenarios(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.logf("--changed: no %s/: a rule's scenarios do not count, only its mutants' files", catalogue.ScenariosDir)
	case err != nil:
		return nil, fmt.Errorf("--changed: %w", err)
	}
	all := ms
	if !*f.operators {
		all, _ = catalogue.LoadCatalogue(os.DirFS(dir), filepath.ToSlash(*f.catalogue))
	}
	ms = catalogue.SelectChanged(ms, all, files, scenarios, filepath.ToSlash(*f.catalogue))
	c.logf("--changed %s: %d file(s) changed, %d mutant(s) concerned", *f.changed, len(files), len(ms))
	return ms, nil
}

// splitIDs splits a comma-separated list of rule or mutant ids.
func splitIDs(list string) []string {
	var ids []string
	for _, id := range strings.Split(list, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
