/**
 * The dashboard page of `control serve` (docs/reference/http_api.md §1): what a GET outside `/api/` answers. The page
 * itself holds no run data and needs no token (every API call it makes carries one); the Host allow-list still
 * applies. Until the page is built every such path answers 404.
 */

/** The response for a GET of `path` (not under `/api/`), or null for 404. */
export function dashboardResponse(_req: Request, _path: string): Response | null {
  return null;
}
