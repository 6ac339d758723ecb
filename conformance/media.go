//go:build conformance

package conformance

// The payloads of the image and audio fixtures, as the reference server
// of the conformance suite sends them.
const (
	// pngBase64 is a 1x1 red PNG.
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	// wavBase64 is a WAV file of one silent sample.
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)
