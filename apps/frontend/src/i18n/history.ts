/** Messages of the history page. */
export const en = {} as const;

export const es = {} as const satisfies Record<keyof typeof en, string>;
