package github

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/talonhq/talon/tool"
)

// item is an issue, a pull request or a comment as the API returns it.
type item struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	State   string `json:"state"`
	HTMLURL string `json:"html_url"`
	Body    string `json:"body"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Comments    int             `json:"comments"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
	PullRequest json.RawMessage `json:"pull_request"`
	Draft       bool            `json:"draft"`
	Merged      bool            `json:"merged"`
	MergedAt    string          `json:"merged_at"`
	Head        struct {
		Ref string `json:"ref"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

// Item is one issue, pull request or comment in Output.Data.
type Item struct {
	Number    int      `json:"number,omitempty"`
	Title     string   `json:"title,omitempty"`
	State     string   `json:"state,omitempty"`
	URL       string   `json:"url"`
	Author    string   `json:"author,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	Comments  int      `json:"comments,omitempty"`
	UpdatedAt string   `json:"updated_at,omitempty"`
	Body      string   `json:"body,omitempty"`
	Draft     bool     `json:"draft,omitempty"`
	Merged    bool     `json:"merged,omitempty"`
	Head      string   `json:"head,omitempty"`
	Base      string   `json:"base,omitempty"`
}

// Data is github's Output.Data.
type Data struct {
	Action string `json:"action"`
	Repo   string `json:"repo"`
	// Items are the listed items, or the one item read or written.
	Items []Item `json:"items"`
	// More says a list stopped at its limit with items left.
	More bool `json:"more,omitempty"`
}

func (it item) export(withBody bool) Item {
	out := Item{Number: it.Number, Title: it.Title, State: it.State, URL: it.HTMLURL, Author: it.User.Login,
		Comments: it.Comments, UpdatedAt: it.UpdatedAt, Draft: it.Draft, Merged: it.Merged || it.MergedAt != "",
		Head: it.Head.Ref, Base: it.Base.Ref}
	for _, l := range it.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	if withBody {
		out.Body = clip(it.Body, shownBody)
	}
	return out
}

func (it Item) line() string {
	state := it.State
	switch {
	case it.Merged:
		state = "merged"
	case it.Draft && state == "open":
		state = "draft"
	}
	s := fmt.Sprintf("#%d [%s] %s", it.Number, state, it.Title)
	if it.Author != "" {
		s += " (@" + it.Author + ")"
	}
	if len(it.Labels) > 0 {
		s += " {" + strings.Join(it.Labels, ", ") + "}"
	}
	return s
}

func listResult(c call, items []item, more bool, limit int) tool.Result {
	d := Data{Action: c.Action, Repo: c.Owner + "/" + c.Repo, Items: []Item{}, More: more}
	for _, it := range items {
		d.Items = append(d.Items, it.export(false))
	}
	kind := "issues"
	if c.Action == ListPulls {
		kind = "pull requests"
	}
	state := orDefault(c.State, "open")
	var b strings.Builder
	if len(d.Items) == 0 {
		fmt.Fprintf(&b, "No %s %s in %s.", state, kind, d.Repo)
	} else {
		fmt.Fprintf(&b, "%d %s %s in %s:\n", len(d.Items), state, kind, d.Repo)
		for _, it := range d.Items {
			fmt.Fprintf(&b, "%s\n  %s\n", it.line(), it.URL)
		}
	}
	if more {
		fmt.Fprintf(&b, "\n[more %s exist than the %d shown: narrow with state or labels, or raise limit up to %d]", kind, limit, MaxLimit)
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: d}}
}

func itemResult(c call, it item) tool.Result {
	x := it.export(true)
	d := Data{Action: c.Action, Repo: c.Owner + "/" + c.Repo, Items: []Item{x}}
	var b strings.Builder
	switch c.Action {
	case CreateIssue:
		fmt.Fprintf(&b, "Created issue #%d in %s: %s", x.Number, d.Repo, x.URL)
	case CreatePull:
		fmt.Fprintf(&b, "Created pull request #%d in %s (%s -> %s): %s", x.Number, d.Repo, x.Head, x.Base, x.URL)
	case CommentIssue:
		fmt.Fprintf(&b, "Commented on #%d in %s: %s", c.Number, d.Repo, x.URL)
	default:
		b.WriteString(x.line() + "\n" + x.URL + "\n")
		if x.Head != "" {
			fmt.Fprintf(&b, "Branches: %s -> %s\n", x.Head, x.Base)
		}
		fmt.Fprintf(&b, "Comments: %d, updated %s\n\n", x.Comments, x.UpdatedAt)
		if strings.TrimSpace(x.Body) == "" {
			b.WriteString("(no description)")
		} else {
			b.WriteString(x.Body)
		}
	}
	return tool.Result{Success: true, Output: tool.Output{Text: b.String(), Data: d}}
}

// clip cuts s to at most n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " …[cut]"
}
