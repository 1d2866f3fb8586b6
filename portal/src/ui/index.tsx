/** The portal's shared pieces, by what they hold: data hooks, page frame, problems, form fields, text. */
export * from "./resource";
export * from "./page";
export * from "./problems";
export * from "./form";
export * from "./text";
export * from "./organizational-roles";
