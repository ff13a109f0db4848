package mutation

import (
	"io"
	"os"
	"path/filepath"
)

// WriteReports writes a campaign's mutation.json and mutation.md into dir,
// each replaced whole (a temporary file renamed), so that a campaign cut
// short never leaves half a report where the last one was.
func WriteReports(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "mutation.json"), r, WriteJSON); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "mutation.md"), r, WriteMarkdown)
}

func writeFile(path string, r *Report, f func(io.Writer, *Report) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mutation-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := f(tmp, r); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
