/** How the service introduces itself in `/openapi.json` and `/llms.txt`. Replace with your product's words. */
export const SERVICE_INFO = {
  name: 'Connector',
  version: '1.0.0',
  summary:
    'Acts for a person who connected it: shows who they are, keeps a list of their things, and runs paid jobs ' +
    'for them that are charged once, even when a request is retried.',
} as const;
