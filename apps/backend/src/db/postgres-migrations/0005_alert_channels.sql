CREATE TABLE "alert_channel" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"enabled" boolean NOT NULL,
	"events" text NOT NULL,
	"stacks" text NOT NULL,
	"language" text NOT NULL,
	"vulnerability_severity" text DEFAULT 'critical' NOT NULL,
	"alert_on_first_scan" boolean DEFAULT false NOT NULL,
	"settings" text NOT NULL,
	"sealed_secrets" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_delivery" (
	"id" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event" text NOT NULL,
	"stack" text,
	"summary" text NOT NULL,
	"status" text NOT NULL,
	"attempts" text NOT NULL,
	"runner" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_update_seen" (
	"stack" text NOT NULL,
	"service" text NOT NULL,
	"image" text NOT NULL,
	"seen_at" bigint NOT NULL,
	CONSTRAINT "alert_update_seen_stack_service_pk" PRIMARY KEY("stack","service")
);
--> statement-breakpoint
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_channel_id_alert_channel_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."alert_channel"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_channel_created_at_idx" ON "alert_channel" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_delivery_event_idx" ON "alert_delivery" USING btree ("channel_id","event_id");--> statement-breakpoint
CREATE INDEX "alert_delivery_channel_idx" ON "alert_delivery" USING btree ("channel_id","created_at","id");--> statement-breakpoint
CREATE INDEX "alert_delivery_runner_idx" ON "alert_delivery" USING btree ("runner");