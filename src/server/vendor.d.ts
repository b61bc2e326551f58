declare module 'swagger-ui-dist' {
  /** Folder holding swagger-ui's static assets. */
  export function getAbsoluteFSPath(): string;
  const swaggerUiDist: { getAbsoluteFSPath(): string };
  export default swaggerUiDist;
}
