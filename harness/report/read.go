package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// ReadFile reads a JSON report written by MarshalJSON; an error names the
// file.
func ReadFile(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := r.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return &r, nil
}
