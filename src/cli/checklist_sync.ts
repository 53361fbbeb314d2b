import { notBuilt } from "./_stub.ts";
export const spec = notBuilt("checklist sync");
