package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

const generateUsage = `usage: go run ./xtask generate features [flags]

Print the Go build tags that realise a selection of build features
(build/features.toml), for a release target (build/targets.toml) when
--target is given.

flags:
  --selection S         minimal, default, dist or all (default "default")
  --add F[,F...]        features to add to the selection (repeatable)
  --target T            GOOS/GOARCH[/variant] or a leg name, such as
                        linux/arm/7 or linux-armv7: apply its exclusions
  --format F            list (a,b,c), flags (-tags=a,b,c, for go build) or json
  --features-file FILE  default "build/features.toml"
  --targets-file FILE   default "build/targets.toml"

examples:
  go run ./xtask generate features --selection dist --target linux/arm/7
  go build $(go run ./xtask generate features --add tools-external --format flags) ./cmd/talon
`

// listFlag collects repeatable, comma-separated values.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// policyFlags are the flags every feature and release task shares.
type policyFlags struct {
	featuresFile, targetsFile string
}

func (pf *policyFlags) register(flags *flag.FlagSet) {
	flags.StringVar(&pf.featuresFile, "features-file", defaultFeaturesFile, "the feature model")
	flags.StringVar(&pf.targetsFile, "targets-file", defaultTargetsFile, "the target policy")
}

// load reads both files; the policy is validated against the model.
func (pf *policyFlags) load() (*featureModel, *policy, error) {
	m, err := loadFeatures(pf.featuresFile)
	if err != nil {
		return nil, nil, err
	}
	p, err := loadPolicy(pf.targetsFile, m)
	if err != nil {
		return nil, nil, err
	}
	return m, p, nil
}

func runGenerate(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, generateUsage)
		return exitUsage
	}
	switch args[0] {
	case "features":
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, generateUsage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "xtask generate: unknown subcommand %q\n", args[0])
		fmt.Fprint(stderr, generateUsage)
		return exitUsage
	}
	flags := flag.NewFlagSet("generate features", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() { fmt.Fprint(stderr, generateUsage) }
	var pf policyFlags
	pf.register(flags)
	sel := flags.String("selection", "default", "the selection")
	targetSpec := flags.String("target", "", "GOOS/GOARCH[/variant] or a leg name")
	format := flags.String("format", "list", "list, flags or json")
	var add listFlag
	flags.Var(&add, "add", "features to add")
	if err := flags.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "xtask generate features: unexpected argument %q; see go run ./xtask generate help\n", flags.Arg(0))
		return exitUsage
	}
	switch *format {
	case "list", "flags", "json":
	default:
		fmt.Fprintf(stderr, "xtask generate features: unknown --format %q: use list, flags or json\n", *format)
		return exitUsage
	}
	m, p, err := pf.load()
	if err != nil {
		fmt.Fprintf(stderr, "xtask generate features: %v\n", err)
		return exitFailed
	}
	var t *target
	if *targetSpec != "" {
		if t, err = p.find(*targetSpec); err != nil {
			fmt.Fprintf(stderr, "xtask generate features: %v\n", err)
			return exitUsage
		}
	}
	r, err := m.resolve(*sel, add, t)
	if err != nil {
		fmt.Fprintf(stderr, "xtask generate features: %v\n", err)
		return exitUsage
	}
	tags := strings.Join(r.Tags, ",")
	switch *format {
	case "list":
		fmt.Fprintln(stdout, tags)
	case "flags":
		fmt.Fprintf(stdout, "-tags=%s\n", tags)
	default:
		out := struct {
			Selection string   `json:"selection"`
			Target    string   `json:"target,omitempty"`
			Features  []string `json:"features"`
			Excluded  []string `json:"excluded,omitempty"`
			Tags      []string `json:"tags"`
		}{Selection: *sel, Features: r.Features, Excluded: r.Excluded, Tags: nonNil(r.Tags)}
		if t != nil {
			out.Target = t.ID()
		}
		if err := writeJSON(stdout, out); err != nil {
			fmt.Fprintf(stderr, "xtask generate features: %v\n", err)
			return exitFailed
		}
	}
	return exitOK
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
