package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/spec"
)

// A plugin repro bundle is one folder per failing or erroring requirement
// (DIR/<ID>/bundle.json, spec/plugin-bundle.schema.json). The plugin
// engines judge calls as they go and keep no log of them, so a bundle holds
// what the report knows and what re-runs the failure: the plugin's command
// and category, the seed and case counts (the generated inputs are drawn
// from the seed, so the same command draws the same inputs and shrinks to
// the same one), each failing check with its message (which carries the
// shrunk input of a generated case), and the conform command line that
// repeats the run. What a kernel bundle has and this one has not, the
// recorded calls, is named in the bundle's not_recorded field.

// pluginBundleFormat is the format tag of a plugin bundle's manifest.
const pluginBundleFormat = "conform-plugin-bundle/v1"

// pluginNotRecorded says what a plugin bundle lacks, and why.
const pluginNotRecorded = "the plugin engines judge each call as it comes and keep no log of the calls, so the bundle holds no recorded calls (no gRPC requests, answers or streamed events); the failing checks' messages carry what the check saw, a generated case's shrunk input among it, and the repro command draws the same inputs from the same seed"

type pluginBundle struct {
	Format      string              `json:"format"`
	CreatedAt   time.Time           `json:"created_at"`
	Conform     pluginBundleConform `json:"conform"`
	Repro       string              `json:"repro"`
	Plugin      pluginBundlePlugin  `json:"plugin"`
	Seed        uint64              `json:"seed"`
	Cases       int                 `json:"cases"`
	HookCases   int                 `json:"hook_cases,omitempty"`
	Shard       string              `json:"shard,omitempty"`
	Requirement pluginBundleReq     `json:"requirement"`
	Checks      []report.CheckRef   `json:"checks"`
	NotRecorded string              `json:"not_recorded"`
}

type pluginBundleConform struct {
	Version        string `json:"version"`
	Protocol       string `json:"protocol"`
	CatalogVersion int    `json:"catalog_version"`
}

type pluginBundlePlugin struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	Command  string `json:"command"`
	Category string `json:"category"`
	Profile  string `json:"profile"`
}

type pluginBundleReq struct {
	ID     string        `json:"id"`
	Title  string        `json:"title"`
	Level  string        `json:"level"`
	Status report.Status `json:"status"`
	Reason string        `json:"reason,omitempty"`
}

// writePluginBundles writes a bundle for every requirement of r that
// failed or erred, and returns the folders written.
func writePluginBundles(dir string, r *report.Report, cg category.Category, f pluginFlags, sh shard.Spec, seed uint64) ([]string, error) {
	cat, err := spec.LoadProfile(cg.Profile)
	if err != nil {
		return nil, err
	}
	var written []string
	for _, q := range r.Requirements {
		if q.Status != report.Fail && q.Status != report.Error {
			continue
		}
		b := pluginBundle{
			Format: pluginBundleFormat, CreatedAt: time.Now().UTC(),
			Conform: pluginBundleConform{Version: runner.Version, Protocol: r.Protocol, CatalogVersion: cat.Version},
			Repro:   pluginRepro(f, r.Kernel.Command, cg.Name, sh, seed),
			Plugin:  pluginBundlePlugin{Name: r.Kernel.Name, Version: r.Kernel.Version, Command: r.Kernel.Command, Category: cg.Name, Profile: cg.Profile},
			Seed:    seed, Cases: f.cases, Shard: sh.String(),
			Requirement: pluginBundleReq{ID: q.ID, Title: q.Title, Level: q.Level, Status: q.Status, Reason: q.Reason},
			Checks:      append([]report.CheckRef{}, q.Failures...),
			NotRecorded: pluginNotRecorded,
		}
		if cg.Name == "tool" {
			b.HookCases = f.hookCases
		}
		data, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			return written, err
		}
		d := filepath.Join(dir, q.ID)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(filepath.Join(d, "bundle.json"), append(data, '\n'), 0o644); err != nil {
			return written, err
		}
		written = append(written, d)
	}
	return written, nil
}

// pluginRepro is the conform command line that repeats the run: the same
// plugin, category, seed, case counts and slice. Only the names of --env
// variables are given (their values may be secrets), --config names its
// file, never its content, and the plugin's command is the report's
// (redacted).
func pluginRepro(f pluginFlags, command, cat string, sh shard.Spec, seed uint64) string {
	parts := []string{"conform", "plugin", "--plugin", quote(command), "--category", cat}
	if !sh.Whole() {
		parts = append(parts, "--shard", sh.String())
	}
	parts = append(parts, "--seed", strconv.FormatUint(seed, 10), "--cases", strconv.Itoa(f.cases), "--hook-cases", strconv.Itoa(f.hookCases))
	if f.config != "" {
		parts = append(parts, "--config", quote(f.config))
	}
	if f.allowEffects != "" {
		parts = append(parts, "--allow-effects", quote(f.allowEffects))
	}
	if len(f.processBacked) > 0 {
		parts = append(parts, "--process-backed", quote(strings.Join(f.processBacked, ",")))
	}
	for _, e := range f.env {
		name, _, _ := strings.Cut(e, "=")
		parts = append(parts, "--env", quote(name))
	}
	if f.multiplier != 1 {
		parts = append(parts, "--timeout-multiplier", fmt.Sprint(f.multiplier))
	}
	return strings.Join(parts, " ")
}
