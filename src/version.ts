/** The service version, reported by /health and capabilities. Kept equal to package.json by a test. */
export const SERVICE_VERSION = '0.1.0';
