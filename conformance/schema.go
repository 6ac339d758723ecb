//go:build conformance

package conformance

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools whose input schema is what the scenario checks.

// jsonSchema202012 is the input schema of json_schema_2020_12_tool
// (json-schema-2020-12): the keywords tools/list must carry through
// unchanged, $schema, $defs with an $anchor, additionalProperties,
// allOf/anyOf and if/then/else.
const jsonSchema202012 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

func schemaTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewToolWithRawSchema("json_schema_2020_12_tool",
			"Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)", json.RawMessage(jsonSchema202012)),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				args, _ := json.Marshal(req.GetArguments())
				return mcp.NewToolResultText(fmt.Sprintf("JSON Schema 2020-12 tool called with: %s", args)), nil
			}},
		// http-custom-header-server-validation looks for a string
		// parameter with an x-mcp-header annotation and checks that the
		// server compares its Mcp-Param-Region header with the body.
		{Tool: mcp.NewTool("test_param_header",
			mcp.WithDescription("Echoes its region argument, which also travels in the Mcp-Param-Region header (SEP-2243)"),
			mcp.WithString("region", mcp.Required(), mcp.Description("any text; sent in the Mcp-Param-Region header too"),
				paramHeader("Region"))),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("region: " + req.GetString("region", "")), nil
			}},
	}
}

// paramHeader annotates a parameter with x-mcp-header: over streamable
// HTTP its value travels in the Mcp-Param-<name> header as well.
func paramHeader(name string) mcp.PropertyOption {
	return func(schema map[string]any) { schema["x-mcp-header"] = name }
}
