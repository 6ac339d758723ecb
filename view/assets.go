package view

import "embed"

// assetFS holds the page, its style and scripts.
//
//go:embed assets
var assetFS embed.FS
