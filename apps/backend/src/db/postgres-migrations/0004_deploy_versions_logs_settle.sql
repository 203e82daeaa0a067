CREATE TABLE "deploy_change" (
	"run_id" text NOT NULL,
	"stack" text NOT NULL,
	"service" text NOT NULL,
	"image" text NOT NULL,
	"from_digest" text,
	"to_digest" text,
	"changed" boolean NOT NULL,
	CONSTRAINT "deploy_change_run_id_service_pk" PRIMARY KEY("run_id","service")
);
--> statement-breakpoint
CREATE TABLE "deploy_log" (
	"run_id" text PRIMARY KEY NOT NULL,
	"stages" text NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "commit_from" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "commit_to" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "commit_message" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "settle_state" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "settle_reason" text;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "settle_until" bigint;--> statement-breakpoint
ALTER TABLE "deploy_history" ADD COLUMN "komodo_updates" text;--> statement-breakpoint
CREATE INDEX "deploy_change_service_idx" ON "deploy_change" USING btree ("stack","service","to_digest");