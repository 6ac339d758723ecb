package loadtest

import "html/template"

// pageParts are the pieces every report page has, as named templates:
//   - "style": the start of the style sheet (body, headings, pass and
//     fail, tables), without a trailing newline;
//   - "passfail": PASS or FAIL in its colour, for a bool;
//   - "verdicts": the verdict table, headed, for a []Verdict;
//   - "leaked": the leaked processes, or "none", for a []string.
const pageParts = `{{define "style"}}body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1180px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:22px 0 6px}
.pass{color:#2e7d32;font-weight:bold}.fail{color:#c62828;font-weight:bold}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}{{end}}
{{- define "passfail"}}<span class="{{if .}}pass{{else}}fail{{end}}">{{if .}}PASS{{else}}FAIL{{end}}</span>{{end}}
{{- define "verdicts"}}<h2>Verdicts</h2>
<table><tr><th></th><th>verdict</th><th>detail</th></tr>
{{range .}}<tr><td class="{{if .Pass}}pass{{else}}fail{{end}}">{{if .Pass}}ok{{else}}FAIL{{end}}</td><td>{{.Name}}</td><td>{{.Detail}}</td></tr>{{end}}
</table>{{end}}
{{- define "leaked"}}{{if .}}{{range .}}{{.}}; {{end}}{{else}}none{{end}}{{end}}`

// NewPage parses a self-contained report page: body, with funcs, can
// call the parts every report page shares (see pageParts) by name.
func NewPage(name string, funcs template.FuncMap, body string) *template.Template {
	return template.Must(template.Must(template.New(name).Funcs(funcs).Parse(pageParts)).Parse(body))
}
