package view

import (
	"strings"
	"sync"
)

// AppHTML is the MCP App of the view_session tool: one HTML document with
// its style and scripts inlined (an app's frame has no server of its own
// to fetch them from), built once from the embedded assets.
var AppHTML = sync.OnceValue(func() string {
	read := func(name string) string {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic("view: " + err.Error()) // embedded: cannot happen
		}
		return string(b)
	}
	// Nothing inlined may end its <script> or <style> early.
	inline := func(name string) string { return strings.ReplaceAll(read(name), "</", "<\\/") }
	return strings.NewReplacer("/*CSS*/", inline("app.css"), "/*TERM*/", inline("term.js"), "/*APP*/", inline("app.js")).
		Replace(read("app.html"))
})
