import { AUTO_REDEPLOY_OPERATOR } from "@stackgate/simulators";
import type { Page } from "playwright-core";
import { test } from "vitest";
import { stackWorldOfThisFile } from "./stack-world.ts";

/** Deploys that Stackgate did not start (Komodo's auto-update here), seen live through Komodo's update stream. */

const world = stackWorldOfThisFile();

const rowOf = (page: Page, stack: string) =>
  page
    .getByRole("table", { name: "Stacks" })
    .getByRole("row")
    .filter({ has: page.getByRole("link", { name: stack, exact: true }) });

test("a redeploy by Komodo's auto-update shows up live on the stacks page, with its result", async () => {
  await world().komodo.updateStream.whenLoggedIn();
  const page = await world().openSignedIn("/stacks");
  const traefik = rowOf(page, "traefik");
  await traefik.waitFor();

  world().komodo.faults.setStack("traefik", { holdUpdates: true });
  world().komodo.startExternalDeploy("traefik", { operator: AUTO_REDEPLOY_OPERATOR });
  await traefik.getByText("Redeploying").waitFor();
  await traefik.getByTitle("Komodo: Auto Redeploy").waitFor();

  world().komodo.releaseUpdates("traefik");
  await page
    .getByRole("region", { name: "Notifications" })
    .getByText("Komodo: Auto Redeploy redeployed traefik")
    .waitFor();
  await traefik.getByText("Running", { exact: true }).waitFor();
});
