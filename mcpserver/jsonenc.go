package mcpserver

import (
	"bytes"
	"encoding/json"
)

// The one JSON encoder of results. A result's text is often its
// structured content as JSON, and a model reads that text as it is:
// json.Marshal would write <, > and & as \u003c, \u003e and \u0026 (HTML
// escaping, for JSON embedded in web pages), so pane text such as
// `a && b -> <div>` would reach the model as `a \u0026\u0026 b -\u003e
// \u003cdiv\u003e`. Every result, resource and batch row is encoded here,
// with HTML escaping off.

// EncodeJSON is json.Marshal without HTML escaping.
func EncodeJSON(v any) ([]byte, error) {
	return encode(v, "")
}

// EncodeJSONIndent is json.MarshalIndent (two spaces) without HTML
// escaping.
func EncodeJSONIndent(v any) ([]byte, error) {
	return encode(v, "  ")
}

func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
