package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentconform/conform/harness/report"
)

// reportOut is one report file a run was asked for.
type reportOut struct {
	flag, path string
	write      func(io.Writer, *report.Report) error
}

// prepareReports checks every report path before the run, so a typo cannot
// throw a finished run away: its folder is created, the file must be
// creatable, and no two reports may share a file.
func prepareReports(f runFlags) ([]reportOut, error) {
	all := []reportOut{
		{"--report-json", f.jsonOut, report.WriteJSON},
		{"--junit", f.junitOut, report.WriteJUnit},
		{"--markdown", f.mdOut, report.WriteMarkdown},
		{"--html", f.htmlOut, report.WriteHTML},
		{"--badge", f.badgeOut, report.WriteBadge},
		{"--badge-json", f.badgeJSON, report.WriteBadgeJSON},
	}
	var outs []reportOut
	seen := map[string]string{}
	for _, o := range all {
		if o.path == "" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return nil, usage("%s %s: %v", o.flag, o.path, err)
		}
		if prev, ok := seen[abs]; ok {
			return nil, usage("%s and %s both name %s; give each report its own file", prev, o.flag, o.path)
		}
		seen[abs] = o.flag
		if err := checkWritable(o.path); err != nil {
			return nil, usage("%s %s: %v", o.flag, o.path, err)
		}
		outs = append(outs, o)
	}
	return outs, nil
}

func checkWritable(path string) error {
	st, err := os.Stat(path)
	existed := err == nil
	if strings.HasSuffix(path, string(os.PathSeparator)) || existed && st.IsDir() {
		return errors.New("a folder, not a file")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("its folder cannot be created: %v", unwrapPath(err))
	}
	// O_TRUNC is left out: an existing report stays as it is until the run
	// has a new one.
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot be written: %v", unwrapPath(err))
	}
	fh.Close()
	if !existed {
		os.Remove(path)
	}
	return nil
}

// writeReports writes every report it can and names each it could not.
func writeReports(r *report.Report, outs []reportOut) error {
	_, err := writeEach(r, outs)
	return err
}

// writeEach is writeReports that also returns the reports written.
func writeEach(r *report.Report, outs []reportOut) ([]reportOut, error) {
	var errs []error
	var written []reportOut
	for _, o := range outs {
		if err := writeFile(o.path, func(w io.Writer) error { return o.write(w, r) }); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %v", o.flag, o.path, unwrapPath(err)))
			continue
		}
		written = append(written, o)
	}
	return written, errors.Join(errs...)
}

// sayWritten ends a run by saying where its reports went, so that nobody
// has to find the files the flags named.
func sayWritten(w io.Writer, written []reportOut, bundle string) {
	var lines []string
	for _, o := range written {
		lines = append(lines, fmt.Sprintf("  %-14s %s", o.flag, o.path))
	}
	if bundle != "" {
		if _, err := os.Stat(bundle); err == nil {
			lines = append(lines, fmt.Sprintf("  %-14s %s", "--bundle", bundle+string(os.PathSeparator)))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nReports written:\n%s\n", strings.Join(lines, "\n"))
}

func writeFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
