import "string-width";
