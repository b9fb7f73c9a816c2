package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const releaseUsage = `usage: go run ./xtask release <subcommand> [flags]

subcommands:
  matrix                print the release legs (build/targets.toml) as JSON,
                        {"include": [...]}, each with its features and tags
  build                 cross-compile every leg in order with -trimpath,
                        CGO_ENABLED=0 and version stamping, archive each
                        (tar.gz, zip for Windows) and write SHA256SUMS; an
                        experimental leg may fail, any other failure stops

flags of build:
  --target T            build one leg: a leg name or GOOS/GOARCH[/variant]
  --version V           the version stamped and put in archive names
                        (default: git describe --tags --always --dirty, else dev)
  --dist DIR            where archives go (default "dist")
flags of both:
  --features-file FILE  default "build/features.toml"
  --targets-file FILE   default "build/targets.toml"
`

// versionPattern keeps versions usable in file names.
var versionPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`)

// cliPackage is where the version variables live.
const cliPackage = "github.com/talonhq/talon/cli"

// leg is a target with its resolved features, as the matrix prints it.
type leg struct {
	target
	Target   string   `json:"target"`
	Features []string `json:"features"`
	Excluded []string `json:"excluded,omitempty"`
	Tags     string   `json:"tags"`
}

// legs resolves every target of the policy with its release selection.
func legs(m *featureModel, p *policy) ([]leg, error) {
	out := make([]leg, 0, len(p.Targets))
	for _, t := range p.Targets {
		r, err := m.resolve(p.Selection, nil, &t)
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", t.Name, err)
		}
		out = append(out, leg{target: t, Target: t.ID(), Features: r.Features, Excluded: r.Excluded, Tags: strings.Join(r.Tags, ",")})
	}
	return out, nil
}

func runRelease(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, releaseUsage)
		return exitUsage
	}
	sub := args[0]
	flags := flag.NewFlagSet("release "+sub, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, releaseUsage) }
	var pf policyFlags
	pf.register(flags)
	var targetSpec, version, dist *string
	switch sub {
	case "matrix":
	case "build":
		targetSpec = flags.String("target", "", "one leg")
		version = flags.String("version", "", "the version")
		dist = flags.String("dist", "dist", "the output directory")
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, releaseUsage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "xtask release: unknown subcommand %q\n", sub)
		fmt.Fprint(stderr, releaseUsage)
		return exitUsage
	}
	if err := flags.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "xtask release %s: unexpected argument %q; see go run ./xtask release help\n", sub, flags.Arg(0))
		return exitUsage
	}
	m, p, err := pf.load()
	if err != nil {
		fmt.Fprintf(stderr, "xtask release %s: %v\n", sub, err)
		return exitFailed
	}
	all, err := legs(m, p)
	if err != nil {
		fmt.Fprintf(stderr, "xtask release %s: %v\n", sub, err)
		return exitFailed
	}
	if sub == "matrix" {
		if err := writeJSON(stdout, map[string][]leg{"include": all}); err != nil {
			fmt.Fprintf(stderr, "xtask release matrix: %v\n", err)
			return exitFailed
		}
		return exitOK
	}

	if *targetSpec != "" {
		t, err := p.find(*targetSpec)
		if err != nil {
			fmt.Fprintf(stderr, "xtask release build: %v\n", err)
			return exitUsage
		}
		for _, l := range all {
			if l.Name == t.Name {
				all = []leg{l}
				break
			}
		}
	}
	stamp, err := gitStamp(*version)
	if err != nil {
		fmt.Fprintf(stderr, "xtask release build: %v\n", err)
		return exitUsage
	}
	r := releaser{dist: *dist, root: ".", stamp: stamp, build: goBuild, log: stdout}
	return r.run(context.Background(), all, stderr)
}

// stamp is what a release build writes into the binary and archive names.
type stamp struct {
	Version, Commit string
	Date            time.Time
}

// ldflags strips symbol tables and sets the version variables of cli.
func (s stamp) ldflags() string {
	return strings.Join([]string{
		"-s", "-w",
		"-X", cliPackage + ".version=" + s.Version,
		"-X", cliPackage + ".commit=" + s.Commit,
		"-X", cliPackage + ".date=" + s.Date.UTC().Format(time.RFC3339),
	}, " ")
}

// gitStamp derives the stamp: the given version or git describe, the
// commit, and the commit's time (SOURCE_DATE_EPOCH wins), so the same
// commit always produces the same archives.
func gitStamp(version string) (stamp, error) {
	git := func(args ...string) string {
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	s := stamp{Version: version}
	if s.Version == "" {
		s.Version = git("describe", "--tags", "--always", "--dirty")
	}
	if s.Version == "" {
		s.Version = "dev"
	}
	if !versionPattern.MatchString(s.Version) {
		return stamp{}, fmt.Errorf("version %q must be letters, digits and . _ + -, as in v1.2.3", s.Version)
	}
	s.Commit = git("rev-parse", "HEAD")
	if s.Commit == "" {
		s.Commit = "unknown"
	}
	when := os.Getenv("SOURCE_DATE_EPOCH")
	if when == "" {
		when = git("log", "-1", "--format=%ct")
	}
	if sec, err := strconv.ParseInt(when, 10, 64); err == nil {
		s.Date = time.Unix(sec, 0).UTC()
	} else {
		s.Date = time.Now().UTC().Truncate(time.Second)
	}
	return s, nil
}

// builder compiles one leg into out.
type builder func(ctx context.Context, l leg, s stamp, out string) error

// goBuild cross-compiles with the Go toolchain on PATH.
func goBuild(ctx context.Context, l leg, s stamp, out string) error {
	args := []string{"build", "-trimpath", "-ldflags", s.ldflags(), "-o", out}
	if l.Tags != "" {
		args = append(args, "-tags", l.Tags)
	}
	args = append(args, "./cmd/talon")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "GOOS="+l.GOOS, "GOARCH="+l.GOARCH, "GOARM="+l.GOARM, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// releaser builds, checks and archives legs in sequence.
type releaser struct {
	// dist receives the archives; root holds README.md and LICENSE.
	dist, root string
	stamp      stamp
	build      builder
	log        io.Writer
}

func (r releaser) run(ctx context.Context, all []leg, stderr io.Writer) int {
	if err := os.MkdirAll(r.dist, 0o755); err != nil {
		fmt.Fprintf(stderr, "xtask release build: %v\n", err)
		return exitFailed
	}
	if err := r.clean(); err != nil {
		fmt.Fprintf(stderr, "xtask release build: %v\n", err)
		return exitFailed
	}
	var archives, failedExperimental []string
	for _, l := range all {
		start := time.Now()
		name, err := r.leg(ctx, l)
		if err != nil {
			if l.Experimental {
				fmt.Fprintf(stderr, "xtask release build: experimental leg %s failed, continuing: %v\n", l.Name, err)
				failedExperimental = append(failedExperimental, l.Name)
				continue
			}
			fmt.Fprintf(stderr, "xtask release build: leg %s failed: %v\n", l.Name, err)
			return exitFailed
		}
		archives = append(archives, name)
		fmt.Fprintf(r.log, "%-22s %s (%s)\n", l.Name, name, time.Since(start).Round(time.Second))
	}
	if err := r.checksums(archives); err != nil {
		fmt.Fprintf(stderr, "xtask release build: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(r.log, "%d archive(s) and SHA256SUMS in %s", len(archives), r.dist)
	if len(failedExperimental) > 0 {
		fmt.Fprintf(r.log, "; experimental leg(s) failed: %s", strings.Join(failedExperimental, ", "))
	}
	fmt.Fprintln(r.log)
	return exitOK
}

// clean removes the archives and checksums of an earlier run, so
// SHA256SUMS never lists a file this run did not make.
func (r releaser) clean() error {
	old, err := filepath.Glob(filepath.Join(r.dist, "talon-*"))
	if err != nil {
		return err
	}
	for _, f := range append(old, filepath.Join(r.dist, "SHA256SUMS")) {
		if err := os.RemoveAll(f); err != nil {
			return fmt.Errorf("remove %s: %w", f, err)
		}
	}
	return nil
}

// leg builds one leg and returns its archive's file name.
func (r releaser) leg(ctx context.Context, l leg) (string, error) {
	base := "talon-" + r.stamp.Version + "-" + l.Name
	stage, err := os.MkdirTemp(r.dist, ".stage-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(stage) }()
	bin := filepath.Join(stage, l.binary())
	if err := r.build(ctx, l, r.stamp, bin); err != nil {
		return "", err
	}
	if l.Static {
		if err := checkStatic(bin); err != nil {
			return "", err
		}
	}
	files := []archiveFile{{name: l.binary(), path: bin, mode: 0o755}}
	for _, doc := range []string{"README.md", "LICENSE"} {
		p := filepath.Join(r.root, doc)
		if _, err := os.Stat(p); err == nil {
			files = append(files, archiveFile{name: doc, path: p, mode: 0o644})
		}
	}
	name := base + "." + l.Archive
	out := filepath.Join(r.dist, name)
	if l.Archive == "zip" {
		err = writeZip(out, base, files, r.stamp.Date)
	} else {
		err = writeTarGz(out, base, files, r.stamp.Date)
	}
	if err != nil {
		_ = os.Remove(out)
		return "", err
	}
	return name, nil
}

// checksums writes SHA256SUMS in the format sha256sum -c reads.
func (r releaser) checksums(names []string) error {
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		sum, err := fileSHA256(filepath.Join(r.dist, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(r.dist, "SHA256SUMS"), []byte(b.String()), 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkStatic fails unless the ELF file at path asks for no program
// interpreter and no shared library: it then runs on any Linux kernel of
// its architecture, musl, glibc or no libc at all.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("static check: %w", err)
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("static check: %s asks for a dynamic loader; build it with CGO_ENABLED=0", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("static check: %w", err)
	}
	if len(libs) > 0 {
		return fmt.Errorf("static check: %s needs %s", path, strings.Join(libs, ", "))
	}
	return nil
}

// archiveFile is one file put in an archive.
type archiveFile struct {
	name, path string
	mode       os.FileMode
}

// writeTarGz writes files under dir/ with fixed owners and times, so the
// archive depends only on its contents.
func writeTarGz(out, dir string, files []archiveFile, mtime time.Time) (err error) {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	gz, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
		return err
	}
	for _, af := range files {
		data, err := os.ReadFile(af.path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: dir + "/" + af.name, Mode: int64(af.mode), Size: int64(len(data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip is writeTarGz for Windows users.
func writeZip(out, dir string, files []archiveFile, mtime time.Time) (err error) {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	for _, af := range files {
		data, err := os.ReadFile(af.path)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: dir + "/" + af.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(af.mode)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}
