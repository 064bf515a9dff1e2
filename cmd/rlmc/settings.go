package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/rlmc-dev/rlmc/internal/strictjson"
)

// Claude Code's settings.json, as `rlmc init --claude-code` edits it and
// `rlmc doctor` reads it. The file is the user's: it is edited by inserting
// bytes at one place, so every other key keeps its place, its spelling and
// its formatting, and an edit whose result does not decode to the old
// settings plus the hook is never written.

// hookTimeoutSeconds is the timeout written with the hook: Claude Code's
// own bound on the command, above the hook's one-second deadline.
const hookTimeoutSeconds = 5

// claudeHook is one command hook, as Claude Code's settings name it.
type claudeHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout is in seconds. Claude Code reads it as a JavaScript number,
	// so 5.0 and 2.5 are timeouts as 5 is.
	Timeout float64 `json:"timeout,omitempty"`
}

// claudeHookGroup is one entry of hooks.UserPromptSubmit.
type claudeHookGroup struct {
	Hooks []claudeHook `json:"hooks"`
}

// errSettingsShape means settings.json parses but is not shaped as Claude
// Code's settings (an object whose hooks is an object of arrays), or names
// a key twice on the path the hook goes to: rlmc cannot tell where the hook
// goes, and the user adds it by hand.
var errSettingsShape = errors.New("not shaped as Claude Code settings")

// hookGroup is the entry installHook adds for command.
func hookGroup(command string) claudeHookGroup {
	return claudeHookGroup{Hooks: []claudeHook{{Type: "command", Command: command, Timeout: hookTimeoutSeconds}}}
}

// hookSnippet is the settings a user adds by hand when rlmc cannot: the
// whole file as it would be alone.
func hookSnippet(command string) string {
	v := map[string]map[string][]claudeHookGroup{"hooks": {hookEvent: {hookGroup(command)}}}
	data, _ := json.MarshalIndent(v, "", "  ")
	return string(data)
}

// installedHooks returns the commands of settings' UserPromptSubmit
// command hooks, in file order. It fails when settings is not JSON or not
// shaped as Claude Code settings along that path.
func installedHooks(settings []byte) ([]string, error) {
	hooks, err := installedHookList(settings)
	out := make([]string, len(hooks))
	for i, h := range hooks {
		out[i] = h.Command
	}
	return out, err
}

// installedHookList is installedHooks with each hook's timeout. Keys are
// read as Claude Code, a JavaScript program, reads them: exactly as
// spelt ("Hooks" or "Command" is no key it knows), the last of a repeated
// one winning. encoding/json would match a struct's fields whatever
// their case, and take for installed a hook that never runs.
func installedHookList(settings []byte) ([]claudeHook, error) {
	var top map[string]json.RawMessage
	if err := strictDecode(settings, &top); err != nil {
		return nil, err
	}
	if top == nil { // null
		return nil, fmt.Errorf("the top level is not an object: %w", errSettingsShape)
	}
	raw, ok := top["hooks"]
	if !ok {
		return nil, nil
	}
	var hooks map[string]json.RawMessage
	if err := json.Unmarshal(raw, &hooks); err != nil {
		return nil, fmt.Errorf("hooks: %w", errSettingsShape)
	}
	if raw, ok = hooks[hookEvent]; !ok {
		return nil, nil
	}
	shape := fmt.Errorf("hooks.%s: %w", hookEvent, errSettingsShape)
	var groups []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, shape
	}
	var out []claudeHook
	for _, g := range groups {
		var list []map[string]json.RawMessage
		if raw, ok := g["hooks"]; ok && json.Unmarshal(raw, &list) != nil {
			return nil, shape
		}
		for _, h := range list {
			var hook claudeHook
			for key, dst := range map[string]any{"type": &hook.Type, "command": &hook.Command, "timeout": &hook.Timeout} {
				if raw, ok := h[key]; ok && json.Unmarshal(raw, dst) != nil {
					return nil, shape
				}
			}
			if hook.Type == "command" {
				out = append(out, hook)
			}
		}
	}
	return out, nil
}

// repeatedHookKey returns the first key on the path to the prompt hooks
// ("hooks", then hooks.UserPromptSubmit) that settings names twice in one
// object, "" when none: Claude Code reads the last, and the hooks of the
// others never run, whatever they hold. settings must parse.
func repeatedHookKey(settings []byte) string {
	top, err := scanJSON(settings)
	if err != nil || top.kind != '{' {
		return ""
	}
	hooks, err := top.member("hooks")
	switch {
	case err != nil:
		return "hooks"
	case hooks == nil || hooks.kind != '{':
		return ""
	}
	if _, err := hooks.member(hookEvent); err != nil {
		return "hooks." + hookEvent
	}
	return ""
}

// strictDecode decodes one JSON value into v and refuses trailing data.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return fmt.Errorf("the top level is %s, not an object: %w", jsonKind(te.Value), errSettingsShape)
		}
		if errors.As(err, &te) {
			return fmt.Errorf("%s is %s: %w", te.Field, jsonKind(te.Value), errSettingsShape)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// A settings file is edited by hand: say where.
			line, col := strictjson.Position(data, se.Offset)
			return fmt.Errorf("line %d, column %d: %w", line, col, err)
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// hookCommand is what a hook's command line says of rlmc: init and doctor
// read it the same way.
type hookCommand struct {
	// words are the command's words (shellWords).
	words []string
	// prog is the word of the rlmc program that runs rlmc's Claude Code
	// hook (hook claude-code), or "" when the command runs none.
	prog string
	// runsRlmc: the command's program, after any VAR=value words, is an
	// rlmc, whatever it runs.
	runsRlmc bool
}

// readHookCommand reads a hook command. An rlmc is a program named rlmc or
// rlmc-something, by any path.
func readHookCommand(command string) hookCommand {
	hc := hookCommand{words: shellWords(command)}
	for _, w := range hc.words {
		if !strings.Contains(w, "=") || strings.HasPrefix(w, "=") {
			hc.runsRlmc = isRlmcProgram(w)
			break
		}
	}
	for i := 0; i+2 < len(hc.words); i++ {
		// "claude-code;" still names the hook, with shell syntax after it
		// (doctor reports it rather than passing it over).
		sub := hc.words[i+2]
		if j := strings.IndexAny(sub, shellSyntax); j >= 0 {
			sub = sub[:j]
		}
		if isRlmcProgram(hc.words[i]) && hc.words[i+1] == "hook" && sub == "claude-code" {
			hc.prog = hc.words[i]
			break
		}
	}
	return hc
}

// isRlmcHook reports whether a hook command runs rlmc's Claude Code hook,
// whichever rlmc it names.
func isRlmcHook(command string) bool { return readHookCommand(command).prog != "" }

func isRlmcProgram(word string) bool { return strings.HasPrefix(baseName(word), "rlmc") }

// baseName is the last element of a slash- or backslash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return strings.TrimSuffix(p, ".exe")
}

// shellWords splits a command line as a POSIX shell splits simple words:
// blanks separate, single quotes keep everything, double quotes keep all
// but \" and \\, a backslash outside quotes escapes the next byte. Enough
// for the commands rlmc writes and for finding the program of others.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\' || s[i+1] == '$') {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			w.WriteByte(s[i])
		default:
			in = true
			w.WriteByte(c)
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// utf8BOM is the byte order mark some Windows editors write first.
var utf8BOM = []byte("\xef\xbb\xbf")

// installHook returns settings with a UserPromptSubmit hook running command
// added, and whether anything was added: nothing is when an rlmc hook is
// already there (present names the command found). Empty settings (a file
// that does not exist) become a file of their own.
func installHook(settings []byte, command string) (out []byte, present string, err error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		return []byte(hookSnippet(command) + "\n"), "", nil
	}
	if bytes.HasPrefix(settings, utf8BOM) {
		// Said as what it is: read as JSON it was "invalid character 'ï'".
		return nil, "", fmt.Errorf("the file starts with a byte order mark (U+FEFF), which JSON does not allow: save it as UTF-8 without one: %w", errSettingsShape)
	}
	cmds, err := installedHooks(settings)
	if err != nil {
		return nil, "", err
	}
	for _, c := range cmds {
		if isRlmcHook(c) {
			return settings, c, nil
		}
	}
	top, err := scanJSON(settings)
	if err != nil {
		return nil, "", err
	}
	if top.kind != '{' {
		return nil, "", fmt.Errorf("the top level is not an object: %w", errSettingsShape)
	}
	ed := editor{data: settings}
	group := hookGroup(command)
	var edited []byte
	switch hooks, err := top.member("hooks"); {
	case err != nil:
		return nil, "", err
	case hooks == nil:
		edited = ed.addMember(top, "hooks", map[string][]claudeHookGroup{hookEvent: {group}})
	case hooks.kind != '{':
		return nil, "", fmt.Errorf("hooks is not an object: %w", errSettingsShape)
	default:
		switch list, err := hooks.member(hookEvent); {
		case err != nil:
			return nil, "", err
		case list == nil:
			edited = ed.addMember(hooks, hookEvent, []claudeHookGroup{group})
		case list.kind != '[':
			return nil, "", fmt.Errorf("hooks.%s is not an array: %w", hookEvent, errSettingsShape)
		default:
			edited = ed.addElement(list, group)
		}
	}
	if err := sameButHook(settings, edited, group); err != nil {
		return nil, "", err
	}
	return edited, "", nil
}

// sameButHook checks that edited decodes to old with group appended to
// hooks.UserPromptSubmit, and to nothing else.
func sameButHook(old, edited []byte, group claudeHookGroup) error {
	var want, got map[string]any
	if err := json.Unmarshal(old, &want); err != nil {
		return err
	}
	if err := json.Unmarshal(edited, &got); err != nil {
		return fmt.Errorf("the edit does not parse: %v: %w", err, errSettingsShape)
	}
	var g any
	b, _ := json.Marshal(group)
	_ = json.Unmarshal(b, &g)
	hooks, _ := want["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		want["hooks"] = hooks
	}
	list, _ := hooks[hookEvent].([]any)
	hooks[hookEvent] = append(list, g)
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("the edit would change other settings: %w", errSettingsShape)
	}
	return nil
}

// jsonNode is a JSON value with the byte offsets an edit needs: where it
// starts and ends, and for a container its members' keys and values.
type jsonNode struct {
	kind       byte // '{', '[', or 'v' for a scalar
	start, end int  // start: the opening delimiter; end: just past the value
	keys       []string
	vals       []*jsonNode
}

// member returns the value of key in an object, nil when it has none, and
// an error when it names key twice: which one a reader takes is a guess.
func (n *jsonNode) member(key string) (*jsonNode, error) {
	var found *jsonNode
	for i, k := range n.keys {
		if k == key {
			if found != nil {
				return nil, fmt.Errorf("key %q appears twice: %w", key, errSettingsShape)
			}
			found = n.vals[i]
		}
	}
	return found, nil
}

// scanJSON reads one JSON value into a tree of offsets, through the
// standard decoder's tokens: the decoder checks the syntax, and its input
// offset after each token is where that token ends.
func scanJSON(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var value func() (*jsonNode, error)
	value = func() (*jsonNode, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		d, ok := tok.(json.Delim)
		if !ok {
			return &jsonNode{kind: 'v', start: -1, end: end}, nil
		}
		n := &jsonNode{kind: byte(d), start: end - 1}
		for dec.More() {
			if d == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			v, err := value()
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		n.end = int(dec.InputOffset())
		return n, nil
	}
	return value()
}

// editor inserts into JSON text in the file's own layout: on a line of its
// own at the indentation of the container's members when the file is
// written one member a line, inline when it is written on one line.
type editor struct{ data []byte }

// addMember returns the text with "key": v added as obj's last member.
func (e editor) addMember(obj *jsonNode, key string, v any) []byte {
	k, _ := json.Marshal(key)
	return e.insert(obj, func(indent string) string {
		return string(k) + ": " + e.render(v, indent)
	})
}

// addElement returns the text with v added as arr's last element.
func (e editor) addElement(arr *jsonNode, v any) []byte {
	return e.insert(arr, func(indent string) string { return e.render(v, indent) })
}

// insert places item (rendered for its indentation) after the last member
// of the container n, or alone in it when it is empty.
func (e editor) insert(n *jsonNode, item func(indent string) string) []byte {
	multiline := bytes.IndexByte(bytes.TrimSpace(e.data), '\n') >= 0
	outer := lineIndent(e.data, n.start)
	inner := outer + e.unit()
	var out bytes.Buffer
	if len(n.vals) == 0 {
		// The inside of an empty container ("{}", "{ }", "{\n}") is
		// replaced whole.
		out.Write(e.data[:n.start+1])
		if multiline {
			out.WriteString("\n" + inner + item(inner) + "\n" + outer)
		} else {
			out.WriteString(item(""))
		}
		out.Write(e.data[n.end-1:])
		return out.Bytes()
	}
	last := n.vals[len(n.vals)-1].end
	out.Write(e.data[:last])
	if multiline {
		out.WriteString(",\n" + inner + item(inner))
	} else {
		out.WriteString(", " + item(""))
	}
	out.Write(e.data[last:])
	return out.Bytes()
}

// render encodes v for a position whose line is indented by indent: on
// several lines in a multi-line file, on one otherwise.
func (e editor) render(v any, indent string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(indent, e.unit())
	}
	_ = enc.Encode(v)
	return strings.TrimSuffix(buf.String(), "\n")
}

// unit is the file's indentation step: the leading blanks of its first
// indented line, two spaces when it has none.
func (e editor) unit() string {
	for _, line := range bytes.Split(e.data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) < len(line) && len(trimmed) > 0 {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// lineIndent is the leading blanks of the line holding offset at.
func lineIndent(data []byte, at int) string {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// lineDiff renders the unified diff from old to new of the file name, as
// patch(1) applies it (old names /dev/null when the file is new).
func lineDiff(name string, old, new []byte) string {
	oldName := name
	if len(old) == 0 {
		oldName = "/dev/null"
	}
	return string(diff.Diff(oldName, old, name, new))
}

// jsonKind names a JSON value's kind as encoding/json's type errors give
// it ("array", "number"), with its article.
func jsonKind(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
