/** Messages of the stacks pages and live deploys. */
export const en = {} as const;

export const es = {} as const satisfies Record<keyof typeof en, string>;
