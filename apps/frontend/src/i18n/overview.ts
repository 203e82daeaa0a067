/** Messages of the overview page. */
export const en = {} as const;

export const es = {} as const satisfies Record<keyof typeof en, string>;
